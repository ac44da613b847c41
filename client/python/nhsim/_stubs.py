"""The generated protobuf and gRPC modules of proto/nhsim/v1, with a clear error when absent."""

try:
    from nhsim.v1 import ensemble_pb2, ensemble_pb2_grpc  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "nhsim: the generated stubs (nhsim.v1.ensemble_pb2) are not importable. Install the "
        "package, which generates them (`pip install ./client/python`, docs/python.md), or, "
        "in a build tree, run `cmake --build build --target nhsim_python_stubs` and put "
        f"build/client/python/stubs on PYTHONPATH beside client/python ({error})"
    ) from error

__all__ = ["ensemble_pb2", "ensemble_pb2_grpc"]

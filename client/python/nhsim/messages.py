"""The nhsim.v1.EnsembleResult message behind a result, whatever form the caller holds it in.

Shared by nhsim.results and nhsim.outputs (neither imports the other's internals).
"""

import os
import pathlib

from google.protobuf import json_format

from nhsim._stubs import ensemble_pb2


def read_result_message(path):
    """Reads a result file: the protobuf JSON of an EnsembleResult (`nhsim result JOB --json
    FILE`, `nhsim submit --wait --json FILE`, Result.save) or its binary serialization.

    Returns:
        nhsim.v1.EnsembleResult.
    Raises:
        ValueError: the file is neither.
    """
    data = pathlib.Path(path).read_bytes()
    proto = ensemble_pb2.EnsembleResult()
    try:
        if data.lstrip()[:1] == b"{":
            json_format.Parse(data.decode("utf-8"), proto)
        else:
            proto.ParseFromString(data)
    except Exception as error:  # ParseError, DecodeError, UnicodeDecodeError
        raise ValueError(f"{os.fspath(path)}: not an nhsim result ({error})") from error
    return proto


def as_proto(result):
    """The EnsembleResult message of an nhsim.Result (its ``proto``), an EnsembleResult or a
    result file's path."""
    if isinstance(result, ensemble_pb2.EnsembleResult):
        return result
    if isinstance(getattr(result, "proto", None), ensemble_pb2.EnsembleResult):
        return result.proto
    if isinstance(result, (str, os.PathLike)):
        return read_result_message(result)
    raise TypeError(f"expected an nhsim.Result, an EnsembleResult or a path, "
                    f"got {type(result).__name__}")

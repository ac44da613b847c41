"""Builds the nhsim package with its gRPC stubs (setup.cfg holds the metadata).

build_py runs protoc with grpc_python_plugin on proto/nhsim/v1/*.proto (two directories up,
which pip's in-tree build reaches) and writes nhsim/v1/*_pb2.py and *_pb2_grpc.py into the
build directory beside the package. bookworm's python3-grpc-tools bundles a protoc too old for
proto3 `optional`, so the system's protoc (protobuf-compiler) and grpc_python_plugin
(protobuf-compiler-grpc) are used. Environment overrides: PROTOC, GRPC_PYTHON_PLUGIN (paths of
the programs) and NHSIM_PROTO_DIR (the directory that holds nhsim/v1/*.proto).
"""

import glob
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _program(variable, name, package):
    path = os.environ.get(variable) or shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        raise SystemExit(
            f"nhsim: building the Python package needs `{name}` to generate the gRPC stubs, and it "
            f"is not on PATH (or ${variable} is not an executable). On Debian: "
            f"`sudo apt-get install {package}` (scripts/install-deps installs it).")
    return path


class BuildPyWithStubs(build_py):
    """build_py, then the protobuf and gRPC modules of proto/nhsim/v1 into nhsim/v1/."""

    def run(self):
        super().run()
        proto_dir = os.path.abspath(os.environ.get("NHSIM_PROTO_DIR")
                                    or os.path.join(HERE, "..", "..", "proto"))
        protos = sorted(glob.glob(os.path.join(proto_dir, "nhsim", "v1", "*.proto")))
        if not protos:
            raise SystemExit(
                f"nhsim: no proto files in {proto_dir}/nhsim/v1: build the package from the nhsim "
                "repository (`pip install ./client/python` from its root) or set NHSIM_PROTO_DIR")
        protoc = _program("PROTOC", "protoc", "protobuf-compiler")
        plugin = _program("GRPC_PYTHON_PLUGIN", "grpc_python_plugin", "protobuf-compiler-grpc")
        out = os.path.abspath(self.build_lib)
        command = [protoc, f"-I{proto_dir}", f"--python_out={out}", f"--grpc_python_out={out}",
                   f"--plugin=protoc-gen-grpc_python={plugin}", *protos]
        self.announce("generating the gRPC stubs: " + " ".join(command), level=2)
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise SystemExit(f"nhsim: protoc failed ({run.returncode}):\n{run.stderr}")
        init = os.path.join(out, "nhsim", "v1", "__init__.py")
        with open(init, "w", encoding="utf-8") as file:
            file.write('"""The generated protobuf and gRPC modules of proto/nhsim/v1."""\n')


setup(cmdclass={"build_py": BuildPyWithStubs})

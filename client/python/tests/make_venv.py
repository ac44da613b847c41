"""Makes a fresh venv and installs the nhsim package into it, offline: the ctest fixture
python.install (client/python/CMakeLists.txt).

    /usr/bin/python3 make_venv.py VENV SOURCE      # SOURCE: client/python

The venv sees Debian's packages (--system-site-packages: python3-grpcio, -protobuf, -pandas,
-matplotlib, -tqdm, -pytest, -nbclient, -ipykernel); pip never reaches the network
(--no-index) and builds in the tree without build isolation (setup.py generates the stubs from
proto/ with protoc). Exit status: pip's.
"""

import pathlib
import shutil
import subprocess
import sys


def main(target, source):
    target = pathlib.Path(target)
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--clear",
                    str(target)], check=True)
    python = target / "bin" / "python"
    command = [str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation",
               "--disable-pip-version-check", "--no-cache-dir", "--quiet", str(source)]
    print(" ".join(command), flush=True)
    status = subprocess.run(command, check=False).returncode
    if status == 0:
        subprocess.run([str(python), "-c", "import nhsim, nhsim.v1.ensemble_pb2; "
                        "print('installed', nhsim.__file__)"], check=True, cwd=target)
    return status


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

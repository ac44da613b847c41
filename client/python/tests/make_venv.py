"""Makes a fresh venv and installs the nhsim package into it, offline: the ctest fixture
python.install (client/python/CMakeLists.txt).

    /usr/bin/python3 make_venv.py VENV SOURCE      # SOURCE: client/python

The venv sees Debian's packages (--system-site-packages: python3-grpcio, -protobuf, -pandas,
-matplotlib, -tqdm, -pytest, -nbclient, -ipykernel). The install is docs/python.md's command,
`VENV/bin/pip install SOURCE` with no flags: with no pyproject.toml pip builds with
Debian's setuptools and wheel instead of fetching them, and every dependency is present, so
nothing is downloaded; PIP_NO_INDEX=1 in its environment makes any attempt to reach the index
fail here rather than on a user's offline machine (setup.py generates the stubs from proto/
with protoc). Exit status: pip's.
"""

import os
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
    command = [str(target / "bin" / "pip"), "install", str(source)]
    print(" ".join(command), flush=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_CACHE_DIR="1")
    status = subprocess.run(command, env=env, check=False).returncode
    if status == 0:
        subprocess.run([str(python), "-c", "import nhsim, nhsim.v1.ensemble_pb2; "
                        "print('installed', nhsim.__file__)"], check=True, cwd=target)
    return status


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

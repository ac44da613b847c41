"""Fixtures: real nhsimd processes on free loopback ports, stopped by their pid at the end.

The binaries come from the environment (ctest sets them): NHSIMD (build/server/nhsimd), NHSIM
(build/client/nhsim); NHSIM_EXAMPLES is the examples/ directory.
"""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from nhsim.local import LocalServer

_ROOT = pathlib.Path(__file__).resolve().parents[3]
NHSIM = os.environ.get("NHSIM", str(_ROOT / "build/client/nhsim"))
EXAMPLES = pathlib.Path(os.environ.get("NHSIM_EXAMPLES", _ROOT / "examples"))


class Server(LocalServer):
    """An nhsimd (nhsim.LocalServer: ``address`` "127.0.0.1:PORT", ``log`` its stderr's path)
    on 2 threads, logging to `directory`/nhsimd.log."""

    def __init__(self, directory, *flags):
        super().__init__(threads=2, flags=flags, log=directory / "nhsimd.log")


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """A plaintext nhsimd without tokens."""
    started = Server(tmp_path_factory.mktemp("plain"))
    yield started
    started.stop()


@pytest.fixture(scope="session")
def token_server(tmp_path_factory):
    """An nhsimd with a tokens file holding alice; yields (server, alice's token)."""
    directory = tmp_path_factory.mktemp("tokens")
    tokens = directory / "tokens"
    token = subprocess.run([NHSIM, "token", "alice", "--append", str(tokens)], check=True,
                           capture_output=True, text=True).stdout.strip()
    assert token, "nhsim token printed no token"
    started = Server(directory, "--tokens-file", str(tokens))
    yield started, token
    started.stop()


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate made by openssl;
    yields the directory (ca.pem, server.pem/.key, client.pem/.key)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    directory = tmp_path_factory.mktemp("tls")
    script = """
      key='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
      openssl req -x509 $key -keyout ca.key -out ca.pem -days 2 -subj /CN=nhsim-test-ca
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > server.ext
      openssl req $key -keyout server.key -out server.csr -subj /CN=localhost
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \\
        -out server.pem -days 2 -extfile server.ext
      printf 'extendedKeyUsage=clientAuth\\n' > client.ext
      openssl req $key -keyout client.key -out client.csr -subj /CN=alice
      openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial \\
        -out client.pem -days 2 -extfile client.ext
    """
    subprocess.run(["bash", "-euc", script], cwd=directory, check=True, capture_output=True)
    return directory


def make_small_spec():
    """examples/chaotic_variance.json shrunk to run in well under a second: 16 trajectories,
    the same 4 integrators (h = 0.05, a sample every 20 steps), t_final = 10 (11 samples)."""
    spec = json.loads((EXAMPLES / "chaotic_variance.json").read_text(encoding="utf-8"))
    spec["initial_conditions"]["energy_shell"]["count"] = 16
    spec["t_final"] = 10
    spec["label"] = "python client test"
    return spec


@pytest.fixture
def small_spec():
    """A fresh make_small_spec() dict (tests may change it)."""
    return make_small_spec()

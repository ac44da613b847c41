"""nhsim on this machine, without a server to start first: nhsim.run(spec) runs an ensemble in
a child ``nhsim run`` process; nhsim.local_server() starts an nhsimd on a loopback port for the
service's features (several jobs, watch, cancel) and stops it at the end.

Both use the nhsim binaries found by find_binary: the environment variable (NHSIM for nhsim,
NHSIMD for nhsimd), else the build tree this package lies in (``build/client/nhsim``: the
suite's venv, or client/python on sys.path), else the PATH (``cmake --install``).
"""

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

from google.protobuf import json_format

from nhsim.client import Client, NhsimError, load_spec, spec_units
from nhsim.messages import read_result_message
from nhsim.progress import Progress, mode_of
from nhsim.results import Result

#: binary -> (environment variable, its directory in a build tree)
_BINARIES = {"nhsim": ("NHSIM", "client"), "nhsimd": ("NHSIMD", "server")}


def _executable(path):
    return path.is_file() and os.access(path, os.X_OK)


def find_binary(name):
    """The path of an nhsim binary.

    Args:
        name: "nhsim" (the CLI, for nhsim.run) or "nhsimd" (the server, for local_server).
    Returns:
        str, the first of: $NHSIM / $NHSIMD; ``build/client/nhsim`` / ``build/server/nhsimd``
        (or ``client/nhsim`` / ``server/nhsimd`` of a build directory) above this package's
        files; the binary on the PATH.
    Raises:
        FileNotFoundError: none of them is an executable file; the message names each place
            tried and how to provide one.
        ValueError: `name` is neither.
    """
    if name not in _BINARIES:
        raise ValueError(f"name: expected 'nhsim' or 'nhsimd', got {name!r}")
    variable, folder = _BINARIES[name]
    tried = []
    if os.environ.get(variable):
        path = pathlib.Path(os.environ[variable])
        if _executable(path):
            return str(path)
        raise FileNotFoundError(f"${variable} = {path}: not an executable file (unset it to "
                                f"search the build tree and the PATH)")
    tried.append(f"${variable} (unset)")
    for parent in pathlib.Path(__file__).resolve().parents:
        for candidate in (parent / folder / name, parent / "build" / folder / name):
            if _executable(candidate):
                return str(candidate)
    tried.append(f"{folder}/{name} and build/{folder}/{name} above {pathlib.Path(__file__).parent}")
    found = shutil.which(name)
    if found:
        return found
    tried.append(f"the PATH ({name} not on it)")
    raise FileNotFoundError(
        f"no {name} binary: tried {'; '.join(tried)}. Build nhsim (cmake --build build), "
        f"install it (cmake --install build), or set {variable} to the binary's path")


def _error_from(stderr_lines, returncode):
    """The NhsimError of a failed ``nhsim run``: its {"error": ...} line, else its stderr."""
    for line in reversed(stderr_lines):
        try:
            error = json.loads(line).get("error")
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(error, dict):
            return NhsimError(error.get("code", "UNKNOWN"), error.get("message", ""))
    text = "\n".join(stderr_lines).strip()
    return NhsimError("UNKNOWN", f"nhsim run exited with status {returncode}: {text}")


def run(spec, threads=0, progress=True):
    """Runs an ensemble on this machine, without a server: the same result, bit for bit, as
    the spec submitted to nhsimd (the same core in a child ``nhsim run`` process).

    Args:
        spec: as nhsim.load_spec (a dict in the protobuf JSON mapping, a path, JSON text or a
            SubmitEnsembleRequest); a sweep or an ``until`` spec runs whole.
        threads: worker threads (0: all cores); the bits do not depend on it.
        progress: as Job.watch: True shows the progress where the output goes (a tqdm bar in a
            notebook or on a terminal, plain lines elsewhere), counted in trajectory runs
            (trajectories x integrator choices); "bar", "text", or False / "none".
    Returns:
        nhsim.Result (``job_id`` ""), whose ``units`` hold the spec's custom invariants' units.
    Raises:
        ValueError: the spec does not parse (nhsim.load_spec), naming the field.
        NhsimError: the spec is refused (code "INVALID_ARGUMENT", the message naming the field,
            as the server answers) or the run fails ("UNKNOWN", with nhsim's message).
        FileNotFoundError: no nhsim binary (find_binary).
    A KeyboardInterrupt stops the child process and is raised again.
    """
    request = load_spec(spec)
    if not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads: expected an int >= 0, got {threads!r}")
    command = [find_binary("nhsim"), "--output", "json", "run", "-", "--threads", str(threads),
               "--progress", "json"]
    text = json_format.MessageToJson(request, preserving_proto_field_name=True)
    stderr_lines = []
    with tempfile.TemporaryDirectory(prefix="nhsim-run-") as directory:
        path = pathlib.Path(directory) / "result.json"
        with open(path, "wb") as out, Progress("run", mode_of(progress)) as shown:
            child = subprocess.Popen(  # pylint: disable=consider-using-with
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE, text=True)
            try:
                child.stdin.write(text)
                child.stdin.close()
                for line in child.stderr:
                    line = line.rstrip("\n")
                    try:
                        count = json.loads(line)
                    except json.JSONDecodeError:
                        count = None
                    if isinstance(count, dict) and "trajectories_done" in count:
                        shown.update(count["trajectories_done"], count["trajectories_total"],
                                     "RUNNING")
                    elif line:
                        stderr_lines.append(line)
                returncode = child.wait()
            except BaseException:  # KeyboardInterrupt included: no orphaned run
                child.kill()
                child.wait()
                raise
            finally:
                child.stderr.close()
            if returncode == 0:
                shown.update(shown.done, shown.total, "SUCCEEDED")
            elif shown.total:
                shown.update(shown.done, shown.total, "FAILED")
        if returncode != 0:
            raise _error_from(stderr_lines, returncode)
        return Result(read_result_message(path), spec_units(request))


class LocalServer:
    """An nhsimd process on a free loopback port, started now; stop() ends it.

    Args:
        data_dir: the job store's directory (kept after stop); None: an in-memory store.
        threads: worker threads (0: all cores).
        flags: further nhsimd flags (``nhsimd --help``), e.g. ("--max-running-jobs", "4").
        log: the path of nhsimd's log (JSON lines on its stderr); None: a temporary file.
        timeout: seconds to wait for nhsimd to listen.

    Attributes:
        address: "127.0.0.1:PORT"; process: the subprocess.Popen; log: the log's path.
    Raises:
        RuntimeError: nhsimd exited or did not listen within `timeout` (its log in the message).
        FileNotFoundError: no nhsimd binary (find_binary).
    """

    def __init__(self, data_dir=None, threads=0, flags=(), log=None, timeout=20.0):
        self._scratch = None
        if log is None:
            self._scratch = tempfile.TemporaryDirectory(  # pylint: disable=consider-using-with
                prefix="nhsimd-")
            log = pathlib.Path(self._scratch.name) / "nhsimd.log"
        self.log = pathlib.Path(log)
        self.address = None
        store = ["--data-dir", os.fspath(data_dir)] if data_dir is not None else ["--in-memory"]
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                [find_binary("nhsimd"), "--listen", "127.0.0.1:0", "--metrics", "", *store,
                 "--threads", str(threads), *flags],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=out)
        self.address = self._wait_for_port(timeout)

    def __repr__(self):
        return f"nhsim.LocalServer({self.address!r}, pid {self.process.pid})"

    def _wait_for_port(self, timeout):
        """The port from nhsimd's log line (a JSON object) with "msg": "listening on
        127.0.0.1:PORT, ..."."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            exited = self.process.poll() is not None
            text = self.log.read_text(encoding="utf-8", errors="replace")
            for line in text.split("\n")[:-1]:  # the complete lines
                try:
                    message = json.loads(line).get("msg", "")
                except (json.JSONDecodeError, AttributeError):
                    continue
                match = re.match(r"listening on (127\.0\.0\.1:\d+)", message)
                if match:
                    return match.group(1)
            if exited:
                break
            time.sleep(0.02)
        text = self.log.read_text(encoding="utf-8", errors="replace")
        self.stop()
        raise RuntimeError(f"nhsimd did not start: {text}")

    def client(self, **options):
        """A Client of this server (options as nhsim.Client's, e.g. timeout)."""
        return Client(self.address, **options)

    def stop(self):
        """SIGTERM to the pid (nhsimd checkpoints and exits), SIGKILL after 10 s."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


@contextlib.contextmanager
def local_server(data_dir=None, threads=0, flags=(), **client_options):
    """An nhsimd on a loopback port for the duration of a ``with`` block; yields a Client of
    it, stops the server at the end::

        with nhsim.local_server() as client:
            job = client.submit(spec)
            job.watch()
            result = job.result()

    Args as LocalServer's; client_options as nhsim.Client's (e.g. timeout). The server is
    ``client.server`` (a LocalServer: address, process, log).
    """
    server = LocalServer(data_dir=data_dir, threads=threads, flags=flags)
    try:
        with server.client(**client_options) as client:
            client.server = server
            yield client
    finally:
        server.stop()

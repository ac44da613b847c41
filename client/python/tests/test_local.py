"""nhsim.run (an ensemble without a server) and nhsim.local_server (an nhsimd for a with block):
the same bits as a submitted job, errors that name the field, binaries found or clearly not."""

import io
import os
import pathlib
import subprocess
import sys
import time

import pytest

import nhsim
from nhsim.local import find_binary

_ROOT = pathlib.Path(__file__).resolve().parents[3]


def without_timing(result):
    """A copy of result's proto without what differs between two runs of the same spec: the
    job id and the wall-clock figures."""
    proto = type(result.proto)()
    proto.CopyFrom(result.proto)
    proto.ClearField("job_id")
    for integrator in proto.integrators:
        integrator.ClearField("wall_seconds")
        integrator.ClearField("steps_per_second")
    return proto


def test_run_gives_the_bits_of_a_submitted_job(server, small_spec):
    local = nhsim.run(small_spec, threads=1, progress=False)
    assert local.job_id == "" and local.n_trajectories == 16
    with nhsim.Client(server.address) as client:
        job = client.submit(small_spec).watch(progress=False)
        assert job.state == "SUCCEEDED"
        submitted = job.result()
    assert without_timing(local).SerializeToString(deterministic=True) == \
        without_timing(submitted).SerializeToString(deterministic=True)
    assert all(i.wall_seconds > 0 for i in local.proto.integrators)
    # Threads do not change the bits.
    again = nhsim.run(small_spec, threads=2, progress=False)
    assert without_timing(again) == without_timing(local)


def test_run_shows_progress_in_trajectory_runs(small_spec, monkeypatch):
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stderr", shown)  # not a tty: plain lines
    nhsim.run(small_spec, progress="text")
    lines = shown.getvalue().splitlines()
    assert lines[0].startswith("run: ") and lines[-1] == \
        "run: 64/64 trajectories (100 %), SUCCEEDED", lines  # 16 trajectories x 4 integrators


def test_run_refuses_a_bad_spec_naming_the_field(small_spec):
    small_spec["integrators"][0]["h"] = -1
    with pytest.raises(nhsim.NhsimError) as error:
        nhsim.run(small_spec, progress=False)
    assert error.value.code == "INVALID_ARGUMENT"
    assert error.value.message.startswith("integrators[0].h: "), error.value.message
    small_spec["integrators"][0]["hh"] = 0.1  # caught in Python, with a suggestion
    with pytest.raises(ValueError,
                       match=r"integrators\[0\]\.hh: unknown field \(did you mean h\?\)"):
        nhsim.run(small_spec, progress=False)
    with pytest.raises(ValueError, match="threads"):
        nhsim.run({}, threads=-1)


def test_run_to_a_requested_precision_gives_the_bits_of_a_submitted_job(server, small_spec):
    small_spec["initial_conditions"]["energy_shell"]["count"] = 640  # the cap: two rounds
    small_spec["until"] = {"targets": [{"integrator": "si_dla", "statistic": "final_variance",
                                        "relative_stderr": 0.5}]}
    local = nhsim.run(small_spec, progress=False)
    assert local.proto.until.reached and local.proto.until.trajectories_cap == 640
    with nhsim.Client(server.address) as client:
        submitted = client.submit(small_spec).watch(progress=False).result()
    assert without_timing(local) == without_timing(submitted)


def test_binaries_come_from_the_environment_or_the_build_tree(monkeypatch, tmp_path):
    monkeypatch.setenv("NHSIM", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=r"\$NHSIM = .*missing: not an executable"):
        find_binary("nhsim")
    with pytest.raises(FileNotFoundError):
        nhsim.run({"system": "chaotic_quartic"})
    monkeypatch.delenv("NHSIM")
    monkeypatch.delenv("NHSIMD", raising=False)
    # The suite's venv (build/client/python/venv) lies in the build tree of its binaries.
    found = pathlib.Path(find_binary("nhsimd"))
    assert found.name == "nhsimd" and found.parent.name == "server", found
    with pytest.raises(ValueError, match="name"):
        find_binary("nhsimctl")


def test_no_binary_anywhere_is_a_clear_error(tmp_path):
    """A package outside any build tree, with neither the variables nor the PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("NHSIM", "NHSIMD")}
    env["PATH"] = str(tmp_path)
    code = ("import nhsim.local, shutil, sys\n"
            "sys.modules['nhsim.local'].__file__ = '/nonexistent/nhsim/local.py'\n"
            "try:\n    nhsim.local.find_binary('nhsim')\n"
            "except FileNotFoundError as error:\n    print(error)\n")
    text = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                          capture_output=True, text=True).stdout
    assert text.startswith("no nhsim binary: tried $NHSIM (unset); "), text
    assert "cmake --install build" in text and "set NHSIM to the binary's path" in text


def test_local_server_runs_jobs_and_stops(small_spec):
    with nhsim.local_server(threads=2) as client:
        server = client.server
        assert server.address.startswith("127.0.0.1:")
        job = client.submit(small_spec).watch(progress=False)
        assert job.state == "SUCCEEDED"
        result = job.result()
        assert result.n_trajectories == 16 and result.job_id == job.id
    assert server.process.poll() is not None, "nhsimd still runs after the with block"
    assert without_timing(result) == without_timing(nhsim.run(small_spec, progress=False))


def test_local_server_keeps_a_data_dir(small_spec, tmp_path):
    with nhsim.local_server(data_dir=tmp_path / "store") as client:
        job_id = client.submit(small_spec).watch(progress=False).id
    with nhsim.local_server(data_dir=tmp_path / "store") as client:
        assert client.job(job_id).state == "SUCCEEDED"


def test_local_server_that_cannot_start_says_why(tmp_path):
    with pytest.raises(RuntimeError, match="nhsimd did not start: .*--no-such-flag"):
        nhsim.LocalServer(flags=("--no-such-flag",))


def test_a_queued_job_says_why_it_waits(small_spec):
    small_spec["initial_conditions"]["energy_shell"]["count"] = 1000
    small_spec["t_final"] = 1e4  # minutes of work: cancelled below
    flags = ("--max-running-jobs", "1", "--short-job-steps", "0")
    with nhsim.local_server(threads=1, flags=flags) as client:
        first, second = client.submit(small_spec), client.submit(small_spec)
        try:
            for _ in range(1000):
                if first.refresh().state == "RUNNING":
                    break
                time.sleep(0.01)
            assert first.state == "RUNNING" and first.waiting_reason == ""
            assert second.refresh().waiting_reason == (
                "its identity anonymous runs 1 job, the most one identity runs at once "
                "(--max-running-per-client 1)")
        finally:
            first.cancel()
            second.cancel()


def test_watch_passes_on_the_statistics_so_far_and_then_the_result(small_spec):
    # Each result passed on while the job runs is that of a spec of its first n trajectories,
    # bit for bit (nhsim.run of the cut spec); the last is the job's result.
    small_spec["initial_conditions"]["energy_shell"]["count"] = 2000
    small_spec["integrators"] = small_spec["integrators"][2:]  # the explicit si_dla and rk4
    small_spec["t_final"] = 1000
    seen = []
    with nhsim.local_server(threads=2, flags=("--checkpoint-seconds", "0.3")) as client:
        job = client.submit(small_spec)
        job.watch(progress=False, callback=lambda j, r: seen.append(r), every=0.2)
        final = job.result()
        assert job.steps_done == job.steps_total == 2000 * 2 * 20000
    assert len(seen) >= 2, [r.n_trajectories for r in seen]
    *so_far, last = seen
    assert all(r.partial for r in so_far) and not last.partial
    assert without_timing(last) == without_timing(final)
    counts = [r.n_trajectories for r in so_far]
    assert counts == sorted(set(counts)) and counts[-1] < 2000, counts
    first = so_far[0]
    small_spec["initial_conditions"]["energy_shell"]["count"] = first.n_trajectories
    cut = without_timing(nhsim.run(small_spec, progress=False))
    served = without_timing(first)
    assert served.partial
    served.ClearField("partial")
    assert served == cut


def test_a_queued_job_has_no_statistics_so_far(small_spec):
    small_spec["initial_conditions"]["energy_shell"]["count"] = 1000
    small_spec["t_final"] = 1e4
    flags = ("--max-running-jobs", "1", "--short-job-steps", "0")
    with nhsim.local_server(threads=1, flags=flags) as client:
        first, second = client.submit(small_spec), client.submit(small_spec)
        try:
            with pytest.raises(nhsim.NhsimError) as error:
                second.result(partial=True)
            assert error.value.code == "FAILED_PRECONDITION"
            assert "is QUEUED and has no checkpoint yet" in str(error.value)
        finally:
            first.cancel()
            second.cancel()

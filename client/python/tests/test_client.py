"""The Python client against a real nhsimd: submit, watch, result, DataFrames, figures, errors,
tokens and TLS."""

import json
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import nhsim
import nhsim.plot
from nhsim.results import FAILURE_COLUMNS, STATS_COLUMNS, SUMMARY_COLUMNS

from conftest import NHSIM, Server, make_small_spec

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _python_env():
    """The environment for `python3 -m nhsim` subprocesses: this process's sys.path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["MPLBACKEND"] = "Agg"
    return env


def _assert_png(path, min_bytes=10_000):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert len(data) > min_bytes, f"{path} has only {len(data)} bytes"


@pytest.fixture(scope="module")
def finished(server, tmp_path_factory):
    """The small spec run to the end: (client, job, result, the CLI's JSON result file)."""
    client = nhsim.Client(server.address)
    job = client.submit(make_small_spec())
    assert job.state == "QUEUED"
    assert len(job.id) == 32
    final = job.watch(progress=False)
    result = job.result()
    cli_json = tmp_path_factory.mktemp("cli") / "result.json"
    subprocess.run([NHSIM, "--server", server.address, "result", job.id, "--json", str(cli_json)],
                   check=True, capture_output=True)
    yield client, final, result, cli_json
    client.close()


def test_catalogue(server):
    from nhsim.catalogue import (  # pylint: disable=import-outside-toplevel
        INTEGRATOR_COLUMNS, PARAMETER_COLUMNS, SYSTEM_COLUMNS)
    with nhsim.Client(server.address) as client:
        systems = client.systems()
        integrators = client.integrators()
        parameters = client.parameters()
        quartic = client.system("chaotic_quartic")
        with pytest.raises(KeyError, match="'nope'"):
            client.system("nope")
        disk = client.parameters("rolling_disk")
    assert list(systems.columns) == SYSTEM_COLUMNS
    assert list(integrators.columns) == INTEGRATOR_COLUMNS
    assert list(parameters.columns) == PARAMETER_COLUMNS
    by_name = systems.set_index("name")
    assert "gonzalez" in by_name.loc["chaotic_quartic", "integrators"]
    assert by_name.loc["chaotic_quartic", "parameters"] == ("n",)
    rk4 = integrators.set_index("name").loc["rk4"]
    assert rk4["order"] == 4 and not rk4["implicit"]
    assert integrators.set_index("name").loc["gonzalez", "energy_preserving"]
    assert integrators["order"].dtype == np.int64
    assert isinstance(quartic, nhsim.System) and quartic.parameters[0].name == "n"
    assert quartic.parameters[0].integer and quartic.parameters[0].unit == "1"
    assert list(disk["name"]) == ["m", "r", "J_theta", "J_phi"]
    assert disk.set_index("name").loc["m", "unit"] == "kg"
    assert (disk["system"] == "rolling_disk").all()


def test_watch_returns_the_final_job(finished):
    _, job, _, _ = finished
    assert job.state == "SUCCEEDED", job.error
    assert job.finished
    assert job.trajectories_total == 16 * 4
    assert job.trajectories_done == job.trajectories_total


def test_result_matches_the_cli(finished):
    _, job, result, cli_json = finished
    assert result.job_id == job.id
    assert result.system == "chaotic_quartic"
    assert result.n_trajectories == 16
    assert not result.cancelled
    assert result.parameters == {"n": 3.0}
    # What StreamResult gave the Python client is what the C++ CLI wrote, field for field.
    assert nhsim.load_result(cli_json).proto == result.proto


def test_dataframe(finished):
    _, _, result, _ = finished
    frame = result.to_dataframe()
    assert list(frame.columns) == STATS_COLUMNS
    # 4 choices x 3 default observables x 11 sample times (t = 0, 1, ..., 10).
    assert frame.shape == (4 * 3 * 11, len(STATS_COLUMNS))
    assert sorted(frame["integrator"].unique()) == ["avf", "gonzalez", "rk4", "si_dla"]
    assert set(frame["observable"]) == {"energy_error", "relative_energy_error",
                                        "constraint_residual"}
    assert np.allclose(sorted(frame["t"].unique()), np.arange(11.0))
    assert (frame["h"] == 0.05).all()
    assert frame["count"].dtype == np.int64

    summary = result.summary()
    energy = frame[frame["observable"] == "energy_error"]
    at_zero = energy[energy["t"] == 0].set_index("integrator")
    ok = summary.set_index("integrator")["trajectories_ok"]
    assert (at_zero["count"] == ok.reindex(at_zero.index)).all()
    assert (at_zero["count"] == 16).all()
    assert (at_zero[["mean", "variance", "min", "max"]] == 0).all().all()

    # Every row is the result's numbers, at its place.
    proto = result.proto
    for row in frame.sample(20, random_state=1).itertuples():
        integrator = proto.integrators[row.choice]
        series = next(s for s in integrator.observables if s.observable == row.observable)
        k = list(integrator.sample_times).index(row.t)
        assert integrator.choice.integrator == row.integrator
        assert row.count == series.count[k]
        for name in ("mean", "variance", "min", "max", "q05", "q50", "q95", "mean_stderr",
                     "q50_lower", "q95_upper"):
            assert getattr(row, name) == getattr(series, name)[k] or (
                math.isnan(getattr(row, name)) and math.isnan(getattr(series, name)[k])), name
    sampled = frame[frame["count"] > 0]
    # 16 values: the median's 95 % interval lies between order statistics around it.
    assert (sampled["q50_lower"] <= sampled["q50"]).all()
    assert (sampled["q50"] <= sampled["q50_upper"]).all()
    assert (sampled["min"] <= sampled["q05"]).all() and (sampled["q05"] <= sampled["q50"]).all()
    assert (sampled["q50"] <= sampled["q95"]).all() and (sampled["q95"] <= sampled["max"]).all()


def test_summary_observables_and_failures(finished):
    _, _, result, _ = finished
    summary = result.summary()
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert list(summary["integrator"]) == ["gonzalez", "avf", "si_dla", "rk4"]
    assert (summary["trajectories_ok"] == 16).all() and (summary["trajectories_failed"] == 0).all()
    assert (summary["n_steps"] == 200).all() and (summary["sample_every"] == 20).all()
    assert (summary["steps_completed"] == 16 * 200).all()
    by_name = summary.set_index("integrator")
    # Energy-preserving methods at round-off, si_dla's random walk far above it.
    assert by_name.loc["gonzalez", "max_abs_energy_error"] < 1e-12
    assert by_name.loc["si_dla", "max_abs_energy_error"] > 1e-6
    assert by_name.loc["si_dla", "final_energy_error_variance"] > 1e6 * max(
        by_name.loc["gonzalez", "final_energy_error_variance"], 1e-40)
    # Up to t = 10 the growth model sees the bounded part only: b is within noise of 0.
    b, se = by_name.loc["si_dla", "growth_b"], by_name.loc["si_dla", "growth_b_stderr"]
    assert se > 0 and abs(b) < 4 * se
    assert by_name.loc["si_dla", "growth_b_over_h4"] == b / 0.05 ** 4
    assert by_name.loc["si_dla", "growth_batches"] == 16  # 16 trajectories in 32 batches
    assert (summary["failed_fraction"] == 0).all()
    energy = result.proto.integrators[2].observables[0]
    assert energy.observable == "energy_error"
    assert by_name.loc["si_dla", "final_energy_error_variance"] == energy.variance[-1]
    assert "variance_slope" not in summary.columns  # deprecated: the growth model is the figure

    series = result.observables_frame()
    assert len(series) == 4 * 3
    assert {"growth_b", "growth_b_stderr", "growth_batches"} <= set(series.columns)
    assert not {"variance_slope", "variance_slope_over_h4"} & set(series.columns)
    energy_rows = series[series["observable"] == "energy_error"].set_index("integrator")
    assert energy_rows.loc["si_dla", "growth_b"] == energy.variance_growth.b

    failures = result.failures()
    assert list(failures.columns) == FAILURE_COLUMNS and failures.empty

    ratios = result.variance_ratios()
    assert len(ratios) == 6 * 3  # 4 choices: 6 pairs, 3 observables each
    pair = ratios[(ratios["numerator"] == "si_dla") & (ratios["denominator"] == "rk4")
                  & (ratios["observable"] == "energy_error")].iloc[0]
    assert pair["ratio"] > 1 and pair["ratio_stderr"] > 0 and pair["batches"] == 16


def test_plots_to_png(finished, tmp_path):
    _, _, result, _ = finished
    ax = nhsim.plot.plot_energy_variance(result)
    assert ax.get_yscale() == "log"
    assert ax.get_xlabel() == "t (dimensionless)"
    assert len(ax.get_legend().get_texts()) == 4
    path = tmp_path / "variance.png"
    ax.figure.savefig(path, dpi=80)
    _assert_png(path)

    ax = nhsim.plot.plot_energy_error(result)
    assert ax.get_yscale() == "log" and "H(0)" in ax.get_ylabel()
    ax = nhsim.plot.plot_observable(result, "constraint_residual", extremes=True)
    assert len(ax.get_legend().get_texts()) == 4
    fig = nhsim.plot.plot_overview(result)
    assert len(fig.axes) == 3
    path = tmp_path / "overview.png"
    fig.savefig(path, dpi=80)
    _assert_png(path, min_bytes=30_000)
    with pytest.raises(ValueError, match="'nope' is not in the result"):
        nhsim.plot.plot_observable(result, "nope")


def test_a_single_trajectory_has_an_overview_without_the_variance(small_spec, tmp_path):
    small_spec["initial_conditions"]["energy_shell"]["count"] = 1
    result = nhsim.run(small_spec, progress=False)
    fig = nhsim.plot.plot_overview(result)
    assert len(fig.axes) == 2  # the energy error and the constraint residual
    fig.savefig(tmp_path / "one.png", dpi=80)
    _assert_png(tmp_path / "one.png")
    with pytest.raises(ValueError, match="energy_error: no choice has a positive variance"):
        nhsim.plot.plot_energy_variance(result)


def test_plot_command(finished, tmp_path):
    _, _, _, cli_json = finished
    figure = tmp_path / "fig.png"
    subprocess.run([sys.executable, "-m", "nhsim", "plot", str(cli_json), "-o", str(figure)],
                   check=True, env=_python_env(), capture_output=True)
    _assert_png(figure, min_bytes=30_000)
    figure = tmp_path / "residual.png"
    subprocess.run([sys.executable, "-m", "nhsim", "plot", str(cli_json), "-o", str(figure),
                    "--observable", "constraint_residual"], check=True, env=_python_env(),
                   capture_output=True)
    _assert_png(figure)
    bad = subprocess.run([sys.executable, "-m", "nhsim", "plot", str(cli_json), "-o",
                          str(tmp_path / "no.png"), "--observable", "nope"],
                         env=_python_env(), capture_output=True, text=True)
    assert bad.returncode == 1 and "'nope' is not in the result" in bad.stderr
    assert not (tmp_path / "no.png").exists()


def test_submit_command_prints_the_cli_table(server, small_spec, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(small_spec))
    out = tmp_path / "out.json"
    run = subprocess.run([sys.executable, "-m", "nhsim", "submit", str(spec), "--server",
                          server.address, "--wait", "--json", str(out)],
                         env=_python_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = nhsim.load_result(out)
    assert result.label == "python client test" and result.n_trajectories == 16
    # One vocabulary: the table the C++ CLI prints for the same job, cell for cell (the
    # columns' widths are the CLI's business).
    cli = subprocess.run([NHSIM, "--server", server.address, "result", result.job_id],
                         check=True, capture_output=True, text=True)
    assert [line.split() for line in run.stdout.splitlines()] == [
        line.split() for line in cli.stdout.splitlines()]
    assert run.stdout.split()[:10] == ["integrator", "h", "ok", "failed", "steps/s",
                                       "max|H-H0|", "final", "var", "b/h^4", "+-"]
    assert nhsim.summary_table(result) == run.stdout
    assert "b/h^4: drift of Var(H - H0)" in run.stdout and "si_dla" in run.stdout
    from nhsim.table import HEADERS  # pylint: disable=import-outside-toplevel
    assert set(HEADERS.values()) <= set(result.summary().columns)


def test_spec_errors_name_fields_in_snake_case(small_spec):
    small_spec["t_fnal"] = 3
    with pytest.raises(ValueError) as error:
        nhsim.load_spec(small_spec)
    message = str(error.value)
    assert message.startswith("spec: t_fnal: unknown field (did you mean t_final?)")
    assert "initial_conditions" in message and "initialConditions" not in message
    assert "tFinal" not in message
    del small_spec["t_fnal"]
    small_spec["initial_conditions"]["energy_shell"]["qstd"] = 1
    with pytest.raises(ValueError, match=r"spec: initial_conditions\.energy_shell\.qstd: "
                                         r"unknown field \(did you mean q_std\?\)"):
        nhsim.load_spec(small_spec)
    del small_spec["initial_conditions"]["energy_shell"]["qstd"]
    small_spec["integrators"][2] = {"integrator": "si_dla", "h": 0.05, "sampleEvery": 20}  # JSON
    assert nhsim.load_spec(small_spec).integrators[2].sample_every == 20


def test_submit_path_and_errors(server, small_spec, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(small_spec))
    with nhsim.Client(server.address) as client:
        job = client.submit(spec)  # a pathlib.Path
        assert client.submit(str(spec)).id != job.id  # a str path
        assert job.id in {j.id for j in client.jobs()}
        assert client.job(job.id).id == job.id

        small_spec["integrators"][1]["h"] = -1
        with pytest.raises(nhsim.NhsimError) as error:
            client.submit(small_spec)
        assert error.value.code == "INVALID_ARGUMENT"
        assert error.value.message.startswith("integrators[1].h")
        assert str(error.value).startswith("INVALID_ARGUMENT: integrators[1].h")

        with pytest.raises(nhsim.NhsimError) as error:
            client.job("0" * 32)
        assert error.value.code == "NOT_FOUND"
        with pytest.raises(ValueError, match="no_such_field"):
            client.submit({"system": "chaotic_quartic", "no_such_field": 1})


def test_submit_with_an_idempotency_key_answers_the_same_job(server, small_spec):
    with nhsim.Client(server.address) as client:
        first = client.submit(small_spec, idempotency_key="notebook-cell-3")
        assert client.submit(small_spec, idempotency_key="notebook-cell-3").id == first.id
        assert client.submit(small_spec).id != first.id  # a random key: a new job
        small_spec["label"] = "another spec"
        with pytest.raises(nhsim.NhsimError) as error:
            client.submit(small_spec, idempotency_key="notebook-cell-3")
        assert error.value.code == "ALREADY_EXISTS"
        assert first.id in error.value.message


def test_cancel(server, small_spec):
    small_spec["initial_conditions"]["energy_shell"]["count"] = 400
    small_spec["t_final"] = 2000  # minutes of work on 2 cores: cancelled long before the end
    with nhsim.Client(server.address) as client:
        job = client.submit(small_spec)
        job.cancel()
        assert job.watch(progress=False, timeout=30).state == "CANCELLED"
        assert job.trajectories_done < job.trajectories_total


def test_watch_writes_plain_lines_without_a_terminal(server, small_spec, capfd):
    with nhsim.Client(server.address) as client:
        job = client.submit(small_spec).watch(progress=True)
    assert job.state == "SUCCEEDED"
    captured = capfd.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines and "\r" not in captured.err  # no bar: lines a log file can hold
    assert all(line.startswith(f"job {job.id[:8]}: ") for line in lines), lines
    assert lines[-1] == f"job {job.id[:8]}: 64/64 trajectories (100 %), SUCCEEDED"
    done = [int(line.split(": ")[1].split("/")[0]) for line in lines]
    assert done == sorted(done)
    with nhsim.Client(server.address) as client:
        client.submit(small_spec).watch(progress=False)
    assert capfd.readouterr().err == ""


def test_progress_never_goes_backwards():
    """A cancel's late update (16 done, then 0) does not lower the counter shown."""
    import io  # pylint: disable=import-outside-toplevel
    from nhsim.progress import Progress  # pylint: disable=import-outside-toplevel
    out = io.StringIO()
    with Progress("job 1a2b3c4d", "text", file=out, interval=0) as shown:
        shown.update(0, 64, "RUNNING")
        shown.update(16, 64, "RUNNING")
        shown.update(0, 64, "CANCELLED")
    assert shown.done == 16
    assert out.getvalue().splitlines() == [
        "job 1a2b3c4d: 0/64 trajectories (0 %), RUNNING",
        "job 1a2b3c4d: 16/64 trajectories (25 %), RUNNING",
        "job 1a2b3c4d: 16/64 trajectories (25 %), CANCELLED"]
    bar = Progress("job 1a2b3c4d", "bar", file=io.StringIO())
    shown_n = []
    for done, state in ((0, "RUNNING"), (16, "RUNNING"), (0, "CANCELLED")):
        bar.update(done, 64, state)
        shown_n.append(bar._bar.n)  # pylint: disable=protected-access
    bar.close()
    assert shown_n == [0, 16, 16]
    with pytest.raises(ValueError, match="progress mode"):
        Progress("job", "fancy")


def test_progress_follows_the_steps_within_long_trajectories():
    """Two trajectories of 2e7 steps each: 0/2 done, the percentage and the bar from the
    steps (Job.steps_done), which the server counts as they are taken."""
    import io  # pylint: disable=import-outside-toplevel
    from nhsim.progress import Progress  # pylint: disable=import-outside-toplevel
    out = io.StringIO()
    with Progress("job 1a2b3c4d", "text", file=out, interval=0) as shown:
        shown.update(0, 2, "RUNNING", 10_000_000, 40_000_000)
    assert out.getvalue().splitlines() == ["job 1a2b3c4d: 0/2 trajectories (25 %), RUNNING"]
    bar = Progress("job 1a2b3c4d", "bar", file=io.StringIO())
    bar.update(0, 2, "RUNNING", 10_000_000, 40_000_000)
    assert (bar._bar.n, bar._bar.total) == (10_000_000, 40_000_000)  # pylint: disable=W0212
    bar.close()


def test_tokens(token_server, small_spec, monkeypatch):
    server, token = token_server
    monkeypatch.delenv("NHSIM_TOKEN", raising=False)
    with nhsim.Client(server.address) as client:
        with pytest.raises(nhsim.NhsimError) as error:
            client.systems()
        assert error.value.code == "UNAUTHENTICATED"
    with nhsim.Client(server.address, token="nhsim_" + "0" * 64) as client:
        with pytest.raises(nhsim.NhsimError) as error:
            client.submit(small_spec)
        assert error.value.code == "UNAUTHENTICATED"
    with nhsim.Client(server.address, token=token) as client:
        job = client.submit(small_spec)
        assert job.proto.owner == "alice"
        assert job.watch(progress=False).state == "SUCCEEDED"
        assert job.result().n_trajectories == 16
    monkeypatch.setenv("NHSIM_TOKEN", token)
    with nhsim.Client(server.address) as client:  # the token from the environment
        assert [j.id for j in client.jobs()] == [job.id]
    monkeypatch.setenv("NHSIM_SERVER", server.address)
    with nhsim.Client() as client:  # the address from the environment too
        assert client.address == server.address
        assert [j.id for j in client.jobs()] == [job.id]


def test_tls(tls_files, tmp_path):
    d = tls_files
    server = Server(tmp_path, "--tls-cert", str(d / "server.pem"), "--tls-key",
                    str(d / "server.key"), "--tls-client-ca", str(d / "ca.pem"))
    try:
        with nhsim.Client(server.address, tls_ca=d / "ca.pem", tls_cert=d / "client.pem",
                          tls_key=d / "client.key", timeout=10) as client:
            assert "chaotic_quartic" in set(client.systems()["name"])
        # Without a client certificate the handshake fails (mutual TLS).
        with nhsim.Client(server.address, tls_ca=(d / "ca.pem").read_bytes(),
                          timeout=5) as client:
            with pytest.raises(nhsim.NhsimError) as error:
                client.systems()
            assert error.value.code == "UNAVAILABLE"
        # Plaintext to a TLS server fails too.
        with nhsim.Client(server.address, timeout=5) as client:
            with pytest.raises(nhsim.NhsimError):
                client.systems()
    finally:
        server.stop()


def test_failures_warn_that_statistics_are_conditional():
    from nhsim._stubs import ensemble_pb2  # pylint: disable=import-outside-toplevel
    proto = ensemble_pb2.EnsembleResult(n_trajectories=50)
    spark = proto.integrators.add(trajectories_ok=20, trajectories_failed=30)
    spark.choice.integrator, spark.choice.h = "spark2", 0.001
    fine = proto.integrators.add(trajectories_ok=50)
    fine.choice.integrator, fine.choice.h = "rk4", 0.001
    assert nhsim.failure_warnings(proto) == [
        "spark2 (h 0.001): 30 of 50 trajectories failed (60.0 %); its statistics are over the "
        "successful ones only"]
    with pytest.warns(nhsim.ConditionalStatisticsWarning, match="30 of 50"):
        summary = nhsim.Result(proto).summary()
    assert list(summary["failed_fraction"]) == [0.6, 0.0]
    none = proto.integrators.add(trajectories_failed=50)
    none.choice.integrator, none.choice.h = "avf", 0.001
    assert nhsim.failure_warnings(proto)[1] == (
        "avf (h 0.001): 50 of 50 trajectories failed (100.0 %); none succeeded: no statistics")
    del proto.integrators[-1]
    # The table says why, a line per kind of reason, as the CLI's does (client_report_test);
    # 3 listed of 30 failed: the counts are over the listed ones, and the table says so.
    for i, why in enumerate(["Newton iteration did not converge (last increment 0.01)",
                             "state became non-finite",
                             "Newton iteration did not converge (last increment 0.02)"]):
        spark.failures.add(trajectory=i, integrator="spark2", time=0.5 * i, reason=why)
    lines = nhsim.summary_table(nhsim.Result(proto)).splitlines()
    at = lines.index("warning: spark2 (h 0.001): 30 of 50 trajectories failed (60.0 %); its "
                     "statistics are over the successful ones only")
    assert lines[at + 1:at + 4] == [
        "  reasons of the first 3 failed trajectories:",
        "  2 x Newton iteration did not converge; first: trajectory 0 at t = 0 (last increment "
        "0.01)",
        "  1 x state became non-finite; first: trajectory 1 at t = 0.5"]


def test_the_installed_package_is_tested():
    """Under ctest (NHSIM_EXPECT_INSTALLED) nhsim comes from the venv, not client/python."""
    if not os.environ.get("NHSIM_EXPECT_INSTALLED"):
        pytest.skip("run from the source tree")
    source = pathlib.Path(__file__).resolve().parents[1]
    assert source not in pathlib.Path(nhsim.__file__).resolve().parents, nhsim.__file__
    assert "site-packages" in nhsim.__file__
    import nhsim.v1.ensemble_pb2 as stubs  # pylint: disable=import-outside-toplevel
    assert "site-packages" in stubs.__file__

"""Per-trajectory outputs through the Python client against a real nhsimd: the frames' shapes
and agreement, and the initial states sent back reproduce the ensemble."""

import math

import numpy as np

import nhsim
from nhsim.outputs import HISTOGRAM_COLUMNS, TRAJECTORY_SUMMARY_COLUMNS, initial_states_as_spec

from conftest import make_small_spec

EDGES = [-1e-3, -1e-6, 1e-6, 1e-3]


def _with_outputs(spec):
    spec["outputs"] = {
        "initial_states": {"all": True},
        "final_states": {"indices": [0, 5]},
        "sampled": {"indices": [2, 15]},
        "sampled_state": True,
        "summary": True,
        "histograms": [{"observable": "energy_error", "times": [0, 10], "edges": EDGES}],
    }
    return spec


def _run(client, spec):
    job = client.submit(spec)
    job.watch(progress=False)
    return job.result()


def test_outputs_as_frames_and_back(server):
    client = nhsim.Client(server.address)
    spec = _with_outputs(make_small_spec())
    result = _run(client, spec)
    choices = len(spec["integrators"])

    initial = result.initial_states()
    assert list(initial["trajectory"]) == list(range(16))
    nq = (initial.shape[1] - 1) // 2
    assert list(initial.columns[1:3]) == ["q[0]", "q[1]"] and f"p[{nq - 1}]" in initial.columns

    final = result.final_states()
    assert len(final) == 2 * choices
    assert set(final["trajectory"]) == {0, 5}

    sampled = result.sampled()
    assert len(sampled) == 2 * choices * 11  # 11 samples each
    assert {"energy_error", "constraint_residual", "q[0]", f"p[{nq - 1}]"} <= set(sampled.columns)
    # Trajectory 2 reaches t_final = 10 with every choice.
    last = sampled[(sampled["trajectory"] == 2) & (sampled["t"] == 10)]
    assert len(last) == choices

    summary = result.trajectory_summary()
    assert list(summary.columns) == TRAJECTORY_SUMMARY_COLUMNS
    assert len(summary) == 16 * choices
    assert (summary["status"] == "ok").all() and (summary["final_time"] == 10).all()
    # The summary's maximum is the sampled trajectory's largest |energy error|.
    for (choice, trajectory), rows in sampled.groupby(["choice", "trajectory"]):
        row = summary[(summary["choice"] == choice) & (summary["trajectory"] == trajectory)]
        assert row["max_abs_energy_error"].item() == np.abs(rows["energy_error"]).max()

    histograms = result.histograms()
    assert list(histograms.columns) == HISTOGRAM_COLUMNS
    per_time = histograms.groupby(["choice", "t"])["count"].sum()
    assert (per_time == 16).all()  # every trajectory in a bin, below, above or non-finite
    at_zero = histograms[(histograms["t"] == 0) & (histograms["lo"] == EDGES[1])]
    assert (at_zero["count"] == 16).all()  # H - H0 = 0 exactly at t = 0
    assert math.isinf(histograms["lo"].min())

    # Sent back as explicit states, the initial states give the same statistics.
    replay = make_small_spec()
    replay["initial_conditions"] = {"states": initial_states_as_spec(result)}
    again = _run(client, replay)
    a = result.to_dataframe()
    b = again.to_dataframe()
    assert a[["mean", "variance", "min", "max"]].equals(b[["mean", "variance", "min", "max"]])
    client.close()


def test_no_outputs_give_empty_frames(server):
    client = nhsim.Client(server.address)
    result = _run(client, make_small_spec())
    for frame in (result.initial_states(), result.final_states(), result.sampled(),
                  result.trajectory_summary(), result.histograms()):
        assert frame.empty
    assert list(result.trajectory_summary().columns) == TRAJECTORY_SUMMARY_COLUMNS
    client.close()

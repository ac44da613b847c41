"""Sweeps from Python: one job, long-format DataFrames with the swept fields as
columns, the CLI's table, and each case equal to the job it would be alone."""

import copy

import numpy as np
import pandas as pd
import pytest

import nhsim
from nhsim.results import STATS_COLUMNS, SUMMARY_COLUMNS

from conftest import make_small_spec


@pytest.fixture(scope="module")
def sweep(server):
    """make_small_spec() with si_dla and rk4, swept over n = 2, 3 and h (with sample_every)."""
    spec = make_small_spec()
    spec["integrators"] = [c for c in spec["integrators"] if c["integrator"] in ("si_dla", "rk4")]
    spec["sweep"] = [{"parameters.n": [2, 3]}, {"h": [0.05, 0.1], "sample_every": [20, 10]}]
    client = nhsim.Client(server.address)
    job = client.submit(spec)
    final = job.watch(progress=False)
    assert final.trajectories_done == final.trajectories_total == 16 * 2 * 4
    result = job.result()
    yield client, spec, result
    client.close()


def test_a_sweep_is_one_job_with_long_format_frames(sweep):
    _, _, result = sweep
    assert len(result.cases) == 4
    values, first = result.cases[0]
    assert values == {"parameters.n": 2.0, "h": 0.05, "sample_every": 20.0}
    assert first.parameters["n"] == 2.0
    assert "n" not in result.parameters  # swept: per case
    summary = result.summary()
    assert list(summary.columns) == ["case", "parameters.n", *SUMMARY_COLUMNS]
    assert len(summary) == 8  # 4 cases x 2 choices
    assert summary["case"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert summary["parameters.n"].tolist() == [2, 2, 2, 2, 3, 3, 3, 3]
    assert summary["h"].tolist() == [0.05, 0.05, 0.1, 0.1] * 2  # the swept h is the row's h
    assert summary["sample_every"].tolist() == [20, 20, 10, 10] * 2
    stats = result.to_dataframe()
    assert list(stats.columns) == ["case", "parameters.n", "sample_every", *STATS_COLUMNS]
    final = stats.query("observable == 'energy_error' and t == 10")
    assert len(final) == 8 and (final["count"] == 16).all()
    table = nhsim.summary_table(result)
    header = table.splitlines()[0].split()
    assert header[:5] == ["parameters.n", "h", "sample_every", "integrator", "h"]
    assert table.splitlines()[1].split()[:4] == ["2", "0.05", "20", "si_dla"]
    assert "4 sweep cases" in repr(result)
    with pytest.raises(ValueError, match="a sweep of 4 cases"):
        nhsim.ensemble_summary(result)


def test_each_case_is_the_job_it_would_be_alone(sweep):
    client, spec, result = sweep
    for values, case in result.cases:
        alone = copy.deepcopy(spec)
        del alone["sweep"]
        alone["parameters"]["n"] = values["parameters.n"]
        for choice in alone["integrators"]:
            choice["h"] = values["h"]
            choice["sample_every"] = int(values["sample_every"])
        job = client.submit(alone)
        job.watch(progress=False)
        expected = job.result().to_dataframe()
        got = case.to_dataframe()
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        numbers = expected.select_dtypes("number").to_numpy()
        assert np.array_equal(got.select_dtypes("number").to_numpy(), numbers, equal_nan=True)

"""nhsim.ensemble_summary / nhsim.plot_summary: the mean and its band per integrator choice over
time, with units on the axes (a custom invariant's from its spec)."""

import json

import numpy as np
import pytest

import nhsim
import nhsim.plot
import nhsim.table
import nhsim.units

from conftest import EXAMPLES, make_small_spec


@pytest.fixture(scope="module")
def variance(server):
    """The small variance spec's Result (chaotic_quartic: dimensionless)."""
    with nhsim.Client(server.address) as client:
        job = client.submit(make_small_spec()).watch(progress=False)
        return job.result()


@pytest.fixture(scope="module")
def contact(server):
    """The custom contact oscillator with the invariant H (unit "J") and "L" (no unit)."""
    spec = json.loads((EXAMPLES / "custom_contact_oscillator.json").read_text(encoding="utf-8"))
    spec["custom_system"]["invariants"] = [
        {"name": "H", "unit": "J", "expression":
         "(p_x^2 + p_y^2 + p_z^2)/2 + (x^2 + y^2 + z^2)/2 + epsilon*x^2*z^2/2"},
        {"name": "L", "expression": "x*p_y - y*p_x"}]
    spec["observables"] = ["energy_error", "H", "L"]
    spec["initial_conditions"]["energy_shell"]["count"] = 8
    spec["t_final"] = 5
    with nhsim.Client(server.address) as client:
        job = client.submit(spec).watch(progress=False)
        assert job.state == "SUCCEEDED", job.error
        return job.result(), spec


def test_ensemble_summary_is_the_statistics(variance):
    frame = nhsim.ensemble_summary(variance, "energy_error")
    stats = variance.to_dataframe().query("observable == 'energy_error'").reset_index(drop=True)
    assert len(frame) == len(stats) == 4 * 11
    assert np.array_equal(frame["mean"], stats["mean"])
    assert np.array_equal(frame["lower"], stats["q05"]) and np.array_equal(frame["upper"],
                                                                          stats["q95"])
    se = nhsim.ensemble_summary(variance, "energy_error", band="stderr")
    assert np.allclose(se["upper"] - se["mean"], stats["mean_stderr"])
    assert np.allclose(se["mean"] - se["lower"], stats["mean_stderr"])
    with pytest.raises(ValueError, match="band"):
        nhsim.ensemble_summary(variance, band="ci")
    with pytest.raises(ValueError, match="'nope' is not in the result; it has: "):
        nhsim.ensemble_summary(variance, "nope")


def test_plot_summary_in_one_line(variance, tmp_path):
    ax = nhsim.plot_summary(variance, "energy_error")
    assert ax.get_xlabel() == "t (dimensionless)"
    assert ax.get_ylabel() == "mean energy_error (dimensionless)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["gonzalez", "avf", "si_dla",
                                                                   "rk4"]
    assert len(ax.lines) == 4 and len(ax.collections) == 4  # a line and a band per integrator
    ax.figure.savefig(tmp_path / "summary.png", dpi=60)
    assert (tmp_path / "summary.png").read_bytes()[:4] == b"\x89PNG"
    ax = nhsim.plot_summary(variance, "constraint_residual", band="minmax", logy=True,
                            units={"t": "s"})
    assert ax.get_xlabel() == "t [s]" and ax.get_yscale() in ("log", "symlog")


def test_a_custom_invariant_carries_its_unit(contact):
    result, spec = contact
    assert result.units == {"H": "J", "invariant_error[H]": "J"} == nhsim.spec_units(spec)
    ax = nhsim.plot_summary(result, "H", band="stderr")
    assert ax.get_ylabel() == "mean H [J]"
    assert ax.get_xlabel() == "t"  # a custom system's time unit is not known
    ax = nhsim.plot_summary(result, "L")
    assert ax.get_ylabel() == "mean L"  # no unit given: the bare name
    ax = nhsim.plot_summary(result.proto, "L", units={"L": "kg m^2/s", "t": "s"})
    assert ax.get_ylabel() == "mean L [kg m^2/s]" and ax.get_xlabel() == "t [s]"
    frame = nhsim.ensemble_summary(result, "H")
    assert np.allclose(frame["mean"], 1.0, atol=0.2)  # 8 states on the shell H = 1


def test_units_agree_with_the_catalogue(server):
    """nhsim.units lists t's and the energy's unit by system name (the catalogue serves only the
    parameters' units): every catalogue system is listed, the dimensionless ones have only
    dimensionless parameters and the SI ones only SI units."""
    with nhsim.Client(server.address) as client:
        systems = client.systems()["name"]
        units = client.parameters().groupby("system")["unit"].apply(set)
    si = {"kg", "m", "s", "N", "kg m^2", "m/s^2", "N s/m"}
    for system in systems:
        known = units.get(system, set())
        if nhsim.units.time_unit(system) == "1":
            assert known <= {"1"}, system
        else:
            assert nhsim.units.time_unit(system) == "s", f"{system} has no time unit"
            assert known and known <= si, (system, known)
            assert nhsim.units.observable_unit(system, "energy_error") == "J"


def test_growth_faster_than_the_model_allows_is_flagged_and_not_drawn(variance):
    """Issue 61 item 4: rk4's exponent on the demo's states is 1.35 +- 0.05 (interval 1.24-1.47),
    growth that a + b t cannot follow: the table marks b with "?" and says why, the plot's legend
    marks it too and draws no fit for it."""
    proto = type(variance.proto)()
    proto.CopyFrom(variance.proto)
    flagged = []
    for integrator in proto.integrators:
        growth = next(s for s in integrator.observables
                      if s.observable == "energy_error").variance_growth
        if integrator.choice.integrator == "rk4":
            growth.b, growth.b_stderr = 1e-13, 1e-14
            growth.exponent, growth.exponent_stderr = 1.35, 0.05
            growth.exponent_lower, growth.exponent_upper = 1.24, 1.47
        if nhsim.table.growth_caveat(growth, integrator.trajectories_ok):
            flagged.append(integrator.choice.integrator)
    assert "rk4" in flagged
    table = nhsim.summary_table(nhsim.Result(proto))
    assert ("? b/h^4 of rk4 (h 0.05): the variance grows faster than a + b t allows (exponent "
            "1.35 +- 0.05, 95 % interval 1.24-1.47): b is a secant's slope over the span, not a "
            "drift") in table.splitlines()
    row = next(line for line in table.splitlines() if line.startswith("rk4 "))
    assert "?" in row
    ax = nhsim.plot.plot_energy_variance(nhsim.Result(proto))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [("?" in text) for text in legend] == [
        i.choice.integrator in flagged for i in proto.integrators]
    fits = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(fits) == len(proto.integrators) - len(flagged)

"""The paper figures (nhsim.plot.plot_KEY_figM, KEY a reference key) and scripts/figures' table
of them: every job of scripts/figures, shortened to a few steps, runs on a real nhsimd, and every
figure draws from the results (three of them rendered to PNG with Agg, the slow part); the
deprecated names plot_seed00N_figM warn and draw the same."""

import importlib.machinery
import importlib.util
import io
import re
import warnings

import numpy as np
import pytest

import nhsim
import nhsim.plot

from conftest import _ROOT

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _load_figures_script():
    """scripts/figures as a module (its name has no .py)."""
    loader = importlib.machinery.SourceFileLoader("nhsim_figures_script",
                                                  str(_ROOT / "scripts" / "figures"))
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def _shortened(spec):
    """The spec run for 40 steps of its coarsest h (or less) and at most 4 trajectories: the
    figures need the series, not the physics."""
    coarse = max(choice["h"] for choice in spec["integrators"])
    spec["t_final"] = min(spec["t_final"], 40 * coarse)
    for generator in ("energy_shell", "velocity_perturbation"):
        if generator in spec["initial_conditions"]:
            source = spec["initial_conditions"][generator]
            source["count"] = min(int(source["count"]), 4)
    return spec


@pytest.fixture(scope="module")
def figures_script_results(server):
    """(the scripts/figures module, {job name: Result}) for all its jobs, shortened."""
    script = _load_figures_script()
    with nhsim.Client(server.address) as client:
        jobs = {name: client.submit(_shortened(spec)) for name, spec in script.jobs().items()}
        results = {}
        for name, job in jobs.items():
            assert job.watch(progress=False).state == "SUCCEEDED", (name, job.error)
            results[name] = job.result()
    return script, results


def test_every_paper_figure_draws(figures_script_results):
    script, results = figures_script_results
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    table = script.figures(nhsim.plot)
    assert len({name for name, _, _, _ in table}) == len(table)
    assert set(results) == {job for _, _, jobs, _ in table for job in jobs}
    rendered = {"seed001-fig2.png", "seed002-fig2.png", "seed004-fig3-6-9.png"}  # the slow part
    for name, _, _, draw in table:
        with warnings.catch_warnings():  # the script calls no deprecated name
            warnings.filterwarnings("error", r"nhsim\.plot\.plot_seed", DeprecationWarning)
            fig = draw(results)
        assert fig.axes, name
        if name in rendered:
            buffer = io.BytesIO()
            fig.savefig(buffer, dpi=30, format="png")
            assert buffer.getvalue()[:8] == PNG_SIGNATURE, name
        plt.close(fig)
    # Every public paper figure function is in the script's table.
    drawn = {n for n in dir(nhsim.plot) if re.fullmatch(r"plot_[a-z]+\d{4}_fig\d+", n)}
    assert drawn == {f"plot_{n}" for n in (
        "anahorysimoes2022_fig2", "anahorysimoes2022_fig3", "anahorysimoes2022_fig5",
        "anahorysimoes2022_fig6", "celledoni2019_fig2", "celledoni2019_fig3",
        "celledoni2019_fig4", "kobilarov2010_fig2", "kobilarov2010_fig4",
        *(f"kinon2023_fig{k}" for k in (*range(3, 11), *range(12, 24))),
        *(f"gebhardt2020_fig{k}" for k in range(1, 13)))}


def test_paper_figure_axes_and_refusals(figures_script_results):
    _, results = figures_script_results
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    ax = nhsim.plot.plot_anahorysimoes2022_fig2(results["particle_fig23"])
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "t (dimensionless)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["exact", "mla", "dla"]
    ax = nhsim.plot.plot_kinon2023_fig9(results["top_convergence"])
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == "step h [s]"
    fig = nhsim.plot.plot_kobilarov2010_fig4(results["snakeboard_fig4"])
    assert [a.get_xlabel() for a in fig.axes] == ["$x$ [m]", "t [s]"]
    assert "(reference)" in fig.axes[1].get_legend().get_texts()[-1].get_text()
    quotients = nhsim.plot.second_quotient(results["nontwisting_precision"])
    assert set(quotients) == {"em", "dla"}
    plt.close("all")

    with pytest.raises(ValueError, match="draws single trajectories: this result has 4"):
        nhsim.plot.plot_kobilarov2010_fig4(_four_trajectories(results["snakeboard_fig4"]))
    with pytest.raises(ValueError, match="draws a knife_edge result, got nonholonomic_particle"):
        nhsim.plot.plot_anahorysimoes2022_fig5(results["particle_fig23"])
    with pytest.raises(ValueError, match="no choice of integrator ggl_nope in the result"):
        nhsim.plot.plot_kinon2023_fig14(results["four_bar"], integrator="ggl_nope")


def test_deprecated_names_warn_and_draw_the_same(figures_script_results):
    _, results = figures_script_results
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    old = {n for n in dir(nhsim.plot) if n.startswith("plot_seed")}
    assert len(old) == 41 and all(getattr(nhsim.plot, n).__name__ == n for n in old)
    new = nhsim.plot.plot_kinon2023_fig21(results["four_bar"])
    with pytest.warns(DeprecationWarning, match="use nhsim.plot.plot_kinon2023_fig21"):
        alias = nhsim.plot.plot_seed003_fig21(results["four_bar"])
    assert alias.get_title() == new.get_title()
    assert alias.get_title().startswith("Kinon2023 Fig. 21: ")
    assert len(alias.get_lines()) == len(new.get_lines()) > 0
    for mine, theirs in zip(alias.get_lines(), new.get_lines()):
        assert mine.get_label() == theirs.get_label()
        np.testing.assert_array_equal(mine.get_xydata(), theirs.get_xydata())
    plt.close("all")


def _four_trajectories(result):
    """A copy of the result's message that claims 4 trajectories."""
    proto = type(result.proto)()
    proto.CopyFrom(result.proto)
    proto.n_trajectories = 4
    return proto

"""The figures of [AnahorySimoes2022] (docs/experiments-seed000.md): MLA against DLA on the
nonholonomic particle and the knife edges."""

import numpy as np

from nhsim.plot._common import _new_axes, _positive
from nhsim.plot._paper import _finish, _mean, _picked, _require, _single, _style
from nhsim.results import as_proto
from nhsim.units import axis_label


def plot_anahorysimoes2022_fig2(result, ax=None):
    """[AnahorySimoes2022] Fig. 2 (Example 3): the energy error |H(t) - H(0)| of each integrator on
    the nonholonomic particle (examples/particle_fig23.json), log scale.

    The paper plots the value of H|D* for MLA and DLA; H(0) is the same for every choice, so
    the error shows the same difference: both settle to a constant after the first steps, MLA's
    far below DLA's. ``exact`` (the closed-form flow) stays at round-off.

    Args:
        result: a nonholonomic_particle result (Result, EnsembleResult or a path).
        ax: the Axes to draw into; None = a new figure.

    Returns:
        The Axes. x: t (dimensionless); y: |H(t) - H(0)| (dimensionless).
    """
    proto = as_proto(result)
    _require(proto, "nonholonomic_particle", "plot_anahorysimoes2022_fig2")
    ax = _new_axes(ax)
    for k, label, integrator in _picked(proto):
        t, error = _mean(integrator, "energy_error")
        ax.plot(t, _positive(np.abs(error)), **_style(label, integrator, k, None))
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(r"$|H(t) - H(0)|$", "1"))
    return _finish(ax, "AnahorySimoes2022 Fig. 2: particle, energy error "
                       f"(h = {proto.integrators[0].choice.h:g})", log=True)


def plot_anahorysimoes2022_fig3(result, ax=None, reference="exact"):
    """[AnahorySimoes2022] Fig. 3 (Example 3): the error max_i |q_i(t) - q_i^exact(t)| of each
    method against the closed-form flow eq. (19)-(20) (the result's ``exact`` choice) on the
    nonholonomic particle, from the q[0], q[1], q[2] series of a single trajectory, log scale.

    Args:
        result: a single-trajectory nonholonomic_particle result with q[0..2]
            (examples/particle_fig23.json).
        ax: the Axes to draw into; None = a new figure.
        reference: the integrator id of the exact solution.

    Returns:
        The Axes. x: t (dimensionless); y: the max-norm error (dimensionless).
    """
    proto = as_proto(result)
    _require(proto, "nonholonomic_particle", "plot_anahorysimoes2022_fig3")
    _single(proto, "plot_anahorysimoes2022_fig3")
    exact = _picked(proto, reference)[0][2]
    ax = _new_axes(ax)
    exact_q = [_mean(exact, f"q[{i}]")[1] for i in range(3)]
    for k, label, integrator in _picked(proto):
        if integrator is exact:
            continue
        t = np.asarray(integrator.sample_times, dtype=float)
        if len(t) != len(exact.sample_times) or np.any(t != np.asarray(exact.sample_times)):
            raise ValueError(f"{label} is not sampled at the {reference} choice's times")
        error = np.max([np.abs(_mean(integrator, f"q[{i}]")[1] - exact_q[i])
                        for i in range(3)], axis=0)
        ax.plot(t, _positive(error), **_style(label, integrator, k, None))
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(r"error $\max_i |q_i(t) - q_i^{\mathrm{exact}}(t)|$", "1"))
    return _finish(ax, "AnahorySimoes2022 Fig. 3: particle, error against eq. (19)", log=True)


def _knife_edge_energy(result, ax, figure, title):
    proto = as_proto(result)
    _require(proto, "knife_edge", figure)
    ax = _new_axes(ax)
    for k, label, integrator in _picked(proto):
        t, error = _mean(integrator, "energy_error")
        ax.plot(t, _positive(np.abs(error)), **_style(label, integrator, k, None, linewidth=0.6))
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(r"$|H(t) - H(0)|$", "1"))
    epsilon = dict(proto.parameters).get("epsilon", 0.0)
    return _finish(ax, f"{title} (ε = {epsilon:g}, h = {proto.integrators[0].choice.h:g})",
                   log=True)


def plot_anahorysimoes2022_fig5(result, ax=None):
    """[AnahorySimoes2022] Fig. 5 (Example 4): the energy error |H(t) - H(0)| of MLA and DLA on the
    knife edge with potential x/2 (examples/knife_edge_fig5.json), log scale: both oscillate without
    drift, MLA about 100 times below DLA.

    Returns:
        The Axes. x: t (dimensionless); y: |H(t) - H(0)| (dimensionless).
    """
    return _knife_edge_energy(result, ax, "plot_anahorysimoes2022_fig5",
                              "AnahorySimoes2022 Fig. 5: knife edge")


def plot_anahorysimoes2022_fig6(result, ax=None):
    """[AnahorySimoes2022] Fig. 6 (Example 5): as plot_anahorysimoes2022_fig5 on the perturbed
    knife edge (ε = 0.1, examples/knife_edge_fig6.json): both drift, MLA far less than DLA.

    Returns:
        The Axes. x: t (dimensionless); y: |H(t) - H(0)| (dimensionless).
    """
    return _knife_edge_energy(result, ax, "plot_anahorysimoes2022_fig6",
                              "AnahorySimoes2022 Fig. 6: perturbed knife edge")

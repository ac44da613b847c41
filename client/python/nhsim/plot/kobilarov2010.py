"""The figures of [Kobilarov2010] (docs/experiments-seed002.md): nonholonomic RATTLE and RDP on
the Chaplygin sleigh about its centre of mass and the snakeboard."""

import numpy as np

from nhsim.plot._common import _positive
from nhsim.plot._paper import (_finish, _mean, _picked, _reference_index, _require, _single,
                               _style, _subplots)
from nhsim.results import as_proto
from nhsim.units import axis_label


def plot_kobilarov2010_fig2(results, reference=-1, inset=True):
    """[Kobilarov2010] Fig. 2 (§6.1): the Chaplygin sleigh about its centre of mass. Left: the skate
    paths (x_s, y_s), the "heart", with a close-up of the cusp; right: the relative energy
    error |H(t) - H(0)| / |H(0)| of each method, log scale.

    Args:
        results: single-trajectory chaplygin_sleigh_com results with x_s, y_s and
            relative_energy_error, one per half of the heart (examples/sleigh_heart.json's two
            states ω₀ = ±0.5 rad/s, one per job).
        reference: index of the fine-step reference choice (the spec's last: rdp_exp at
            h/64), drawn black and dashed; None = none.
        inset: draw the close-up of the cusp (where the reference's skate point moves slowest).

    Returns:
        The matplotlib Figure. x_s, y_s in m; the energy error dimensionless.
    """
    protos = [as_proto(r) for r in (results if isinstance(results, (list, tuple))
                                     else [results])]
    fig, ((path, energy),) = _subplots(2, width=5.6, height=4.6)
    zoom = None
    for n, proto in enumerate(protos):
        _require(proto, "chaplygin_sleigh_com", "plot_kobilarov2010_fig2")
        _single(proto, "plot_kobilarov2010_fig2")
        ref = _reference_index(proto, reference)
        for k, label, integrator in _picked(proto):
            style = _style(label, integrator, k, ref)
            if n > 0:
                style.pop("label")
            x, y = _mean(integrator, "x_s")[1], _mean(integrator, "y_s")[1]
            path.plot(x, y, **style)
            if k == ref and zoom is None:
                speed = np.hypot(np.diff(x), np.diff(y))
                j = int(np.nanargmin(speed[1:])) + 1  # not the start
                zoom = (x[j], y[j])
            t, error = _mean(integrator, "relative_energy_error")
            if n == 0:
                energy.plot(t, _positive(error), **style)
    path.set_xlabel(r"skate point $x_s$ [m]")
    path.set_ylabel(r"skate point $y_s$ [m]")
    path.set_aspect("equal", adjustable="datalim")
    _finish(path, "skate paths (both halves of the heart)", legend=False)
    if inset and zoom is not None:
        box = path.inset_axes([0.1, 0.05, 0.3, 0.3])
        for line in path.get_lines():
            box.plot(*line.get_data(), color=line.get_color(), linestyle=line.get_linestyle(),
                     linewidth=line.get_linewidth())
        box.set_xlim(zoom[0] - 0.12, zoom[0] + 0.12)
        box.set_ylim(zoom[1] - 0.12, zoom[1] + 0.12)
        box.set_xticks([])
        box.set_yticks([])
        box.set_title("the cusp, 0.24 m × 0.24 m", fontsize="x-small")
        path.indicate_inset_zoom(box, edgecolor="gray")
    energy.set_xlabel(axis_label("t", "s"))
    energy.set_ylabel(axis_label(r"$|H(t) - H(0)|\,/\,|H(0)|$", "1"))
    _finish(energy, "relative energy error (first half)", log=True, legend=False)
    energy.set_ylim(top=energy.get_ylim()[1] * 30)  # room for the legend
    energy.legend(fontsize="x-small", loc="upper left", ncols=2)
    fig.suptitle("Kobilarov2010 Fig. 2: Chaplygin sleigh about the centre of mass")
    return fig


def plot_kobilarov2010_fig4(result, reference=-1):
    """[Kobilarov2010] Fig. 4 (§6.2): the snakeboard with the controls u_ψ = cos(20πt),
    u_φ = sin(2πt), N = 128 steps over T = 10 s. Left: the board's path (x, y) = (q[3], q[4]);
    right: the energy error H(t) - H(0), which includes the work of the controls.

    Args:
        result: a single-trajectory snakeboard result with q[3], q[4] and energy_error
            (examples/snakeboard_fig4.json; sample it at every coarse step for smooth paths).
        reference: index of the fine-step reference choice (the spec's last: nh_rattle at
            h/128), drawn black and dashed; None = none.

    Returns:
        The matplotlib Figure. x, y in m; energy in J.
    """
    proto = as_proto(result)
    _require(proto, "snakeboard", "plot_kobilarov2010_fig4")
    _single(proto, "plot_kobilarov2010_fig4")
    ref = _reference_index(proto, reference)
    fig, ((path, energy),) = _subplots(2, width=5.6, height=4.4)
    for k, label, integrator in _picked(proto):
        style = _style(label, integrator, k, ref)
        x, y = _mean(integrator, "q[3]")[1], _mean(integrator, "q[4]")[1]
        path.plot(x, y, **style)
        path.plot(x[-1:], y[-1:], marker="o", markersize=4, color=style["color"])
        t, error = _mean(integrator, "energy_error")
        energy.plot(t, error, **style)
    start = _picked(proto)[0][2]
    path.plot(_mean(start, "q[3]")[1][:1], _mean(start, "q[4]")[1][:1], marker="s",
              color="gray", markersize=5, linestyle="none")
    path.set_xlabel(r"$x$ [m]")
    path.set_ylabel(r"$y$ [m]")
    path.set_aspect("equal", adjustable="datalim")
    _finish(path, "board position (square: start, dots: t = T)", legend=False)
    energy.set_xlabel(axis_label("t", "s"))
    energy.set_ylabel(axis_label(r"$H(t) - H(0)$", "J"))
    _finish(energy, "energy (the controls do work)")
    energy.legend(fontsize="x-small")
    coarse = max(i.choice.h for i in proto.integrators)
    fig.suptitle(f"Kobilarov2010 Fig. 4: snakeboard, h = {coarse:g} s "
                 f"(N = {round(proto.integrators[0].sample_times[-1] / coarse)})")
    return fig

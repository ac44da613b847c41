"""The figures of [Celledoni2019] (docs/experiments-seed001.md): discrete gradients on the
chaotic quartic system, the Chaplygin sleigh and the gearbox."""

import math

import numpy as np

from nhsim.plot._common import _arrays, _missing, _positive, _series
from nhsim.plot._paper import (_color, _finish, _mean, _picked, _require, _single, _style,
                               _subplots)
from nhsim.results import as_proto
from nhsim.table import growth_caveat
from nhsim.units import axis_label


def convergence_errors(result, reference="rk4"):
    """The error at the last sample time of each choice against a reference choice: the max
    norm over all q[i] and p[i] series of |mean - reference mean| (what `nhsim convergence`
    prints), for a single-trajectory result.

    Args:
        result: a single-trajectory result with q[i]/p[i] series sampled at a common t_final.
        reference: the integrator id of the reference (its finest-step choice is used).

    Returns:
        A list of (integrator id, h, error), in the result's order, the reference left out.
    """
    proto = as_proto(result)
    _single(proto, "convergence_errors")
    ref = min((i for _, _, i in _picked(proto, reference)), key=lambda i: i.choice.h)
    names = [s.observable for s in ref.observables
             if s.observable.startswith(("q[", "p["))]
    if not names:
        raise ValueError("the reference choice has no q[i] or p[i] series")
    final = {name: _mean(ref, name)[1][-1] for name in names}
    return [(i.choice.integrator, i.choice.h,
             max(abs(_mean(i, name)[1][-1] - final[name]) for name in names))
            for i in proto.integrators if i is not ref]


def _order_panel(ax, result, reference):
    errors = convergence_errors(result, reference)
    methods = list(dict.fromkeys(name for name, _, _ in errors))
    for name in methods:
        h, e = zip(*[(h, e) for m, h, e in errors if m == name])
        ax.plot(h, _positive(e), marker="o", markersize=4, color=_color(name), label=name)
    h_all = np.array(sorted({h for _, h, _ in errors}))
    top = max(e for _, _, e in errors)
    ax.plot(h_all, 2 * top * (h_all / h_all.max()) ** 2, color="gray", linestyle=":",
            label=r"slope 2 ($\propto h^2$)")
    ax.set_xscale("log")
    ax.set_xlabel(axis_label("step h", "1"))
    ax.set_ylabel(axis_label(r"error of $(q, p)$ at $t = %g$, max norm"
                         % as_proto(result).integrators[0].sample_times[-1], "1"))
    _finish(ax, f"order plot (reference {reference} at its finest h)", log=True)


def _trajectory_panel(ax, result, observable, ylabel, title):
    proto = as_proto(result)
    for k, label, integrator in _picked(proto):
        t, values = _mean(integrator, observable)
        ax.plot(t, _positive(values), **_style(label, integrator, k, None, linewidth=0.7))
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(ylabel, "1"))
    _finish(ax, title, log=True)


def _variance_panel(ax, result, reference_slope=1e-4):
    """Var(H - H0) / h^4 per choice, with the growth model a + b t (dashed black) where b is
    significant and unmarked (nhsim.table.growth_caveat); curves at round-off (the discrete
    gradients, 20 decades below) are named in a note instead of stretching the axis over them."""
    proto = as_proto(result)
    steps = sorted({i.choice.h for i in proto.integrators})
    styles = ["-", "--", ":", "-."]
    lowest, roundoff = [], {}
    for k, label, integrator in _picked(proto):
        series = _series(integrator, "energy_error")
        if series is None:
            continue
        t, (variance,) = _arrays(integrator, series, ["variance"])
        h = integrator.choice.h
        keep = t > 0
        scaled = variance[keep] / h ** 4
        name = f"{integrator.choice.integrator} h={h:g}"
        if len(scaled) and np.nanmax(scaled) < 1e-12:  # round-off: energy preserved
            roundoff.setdefault(integrator.choice.integrator, []).append(
                (h, np.nanmax(scaled)))
            continue
        style = styles[steps.index(h) % len(styles)] if len(steps) > 1 else "-"
        growth = series.variance_growth
        significant = (series.HasField("variance_growth") and growth.samples >= 2
                       and growth.b > 2 * growth.b_stderr
                       and not growth_caveat(growth, integrator.trajectories_ok))
        if significant:
            name += f": b/h⁴ {growth.b / h ** 4:.2g} ± {growth.b_stderr / h ** 4:.1g}"
        ax.plot(t[keep], _positive(scaled), linestyle=style, linewidth=1.0,
                color=_color(integrator.choice.integrator), label=name)
        lowest.append(np.nanmin(scaled[scaled > 0]) if np.any(scaled > 0) else np.nan)
        if significant:  # the growth model a + b t over its fit range
            t_fit = t[(t >= growth.t_min) & (t <= growth.t_max)]
            ax.plot(t_fit, (growth.a + growth.b * t_fit) / h ** 4, linestyle=(0, (4, 2)),
                    linewidth=1.6, color="black", alpha=0.6)
    t_max = max(i.sample_times[-1] for i in proto.integrators)
    t_line = np.array([t_max / 100, t_max])  # two decades: clear of the round-off note
    ax.plot(t_line, reference_slope * t_line, color="black", linestyle=":", linewidth=1.2,
            label=f"reference {reference_slope:g} t")
    ax.plot([], [], color="black", linestyle=(0, (4, 2)), alpha=0.6, label="fit a + b t")
    ax.set_xscale("log")
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(r"Var$[H(t) - H(0)]\,/\,h^4$", "1"))
    _finish(ax, f"energy-error variance over {proto.n_trajectories} trajectories / h⁴",
            log=True)
    if lowest and np.isfinite(np.nanmin(lowest)):
        ax.set_ylim(bottom=min(0.5 * np.nanmin(lowest), 0.5 * reference_slope * t_line[0]))
    if roundoff:
        steps_text = ", ".join(f"{h:g}" for h in steps)
        ax.text(0.02, 0.02,
                f"at round-off (max Var/h⁴ at h = {steps_text}):\n" +
                "; ".join(f"{name} " + ", ".join(f"{v:.0e}" for _, v in sorted(values))
                          for name, values in roundoff.items()),
                transform=ax.transAxes, fontsize="x-small", va="bottom")
    ax.legend(fontsize="x-small", loc="lower right")


def plot_celledoni2019_fig2(order=None, trajectory=None, variance=None, reference="rk4"):
    """[Celledoni2019] Fig. 2 (§4.1, the chaotic quartic system, n = 3, H = 3.06): four panels, each
    drawn from the result it needs (a panel whose result is None is left out).

    Args:
        order: top left, the order plot: a single-trajectory result with the q[i], p[i] series
            of every method at several h and the reference (examples/chaotic_fig2_order.json);
            error at t_final against ``reference`` (convergence_errors), log-log, with a slope-2
            guide.
        trajectory: top right and bottom left, the constraint residual and the relative energy
            error |H(t) - H(0)| / |H(0)| along one trajectory, log scale
            (examples/chaotic_fig2_trajectory.json).
        variance: bottom right, the variance of H(t) - H(0) over the ensemble divided by h⁴,
            log-log, one line style per h, with the paper's reference line 1e-4 t
            (examples/chaotic_h4_scaling.json or chaotic_variance.json).
        reference: the integrator id of the order plot's reference.

    Returns:
        The matplotlib Figure. Every quantity is dimensionless.
    """
    panels = [(order, "order"), (trajectory, "constraint"), (trajectory, "energy"),
              (variance, "variance")]
    panels = [(as_proto(r), kind) for r, kind in panels if r is not None]
    if not panels:
        raise ValueError("plot_celledoni2019_fig2 needs at least one of order, trajectory, "
                         "variance")
    for proto, _ in panels:
        _require(proto, "chaotic_quartic", "plot_celledoni2019_fig2")
    ncols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + 1) // 2 if len(panels) > 1 else 1
    fig, axes = _subplots(ncols, nrows, width=5.6, height=4.1)
    axes = axes.ravel()
    for ax, (proto, kind) in zip(axes, panels):
        if kind == "order":
            _order_panel(ax, proto, reference)
        elif kind == "constraint":
            _trajectory_panel(ax, proto, "constraint_residual",
                              r"constraint residual $|\dot x + \Sigma_i\, w_i \dot z_i|$",
                              "constraint, one trajectory")
        elif kind == "energy":
            _trajectory_panel(ax, proto, "relative_energy_error",
                              r"$|H(t) - H(0)|\,/\,|H(0)|$",
                              "relative energy error, one trajectory")
        else:
            _variance_panel(ax, proto)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.suptitle("Celledoni2019 Fig. 2: chaotic quartic system (n = 3, H = 3.06)")
    return fig


def _sleigh_rho(proto, integrator):
    """ρ1, ρ2 of the Chaplygin sleigh in the orthonormal adapted frame of [Celledoni2019] §4.2:
    ρ1 = p_θ / sqrt(J + m a²), ρ2 = (cos θ p_1 + sin θ p_2) / sqrt(m)."""
    params = dict(proto.parameters)
    big_j, a, m = params.get("J", 8.0), params.get("a", 1.0), params.get("m", 1.0)
    theta = _mean(integrator, "q[2]")[1]
    p = [_mean(integrator, f"p[{i}]")[1] for i in range(3)]
    return (p[2] / math.sqrt(big_j + m * a * a),
            (np.cos(theta) * p[0] + np.sin(theta) * p[1]) / math.sqrt(m))


def plot_celledoni2019_fig3(results, integrator=None, t_max=None):
    """[Celledoni2019] Fig. 3 (§4.2, Prop. 4.1): the Chaplygin sleigh leaving the unstable
    equilibrium for the stable one. Left: the contact point's path (x1, x2), the part with
    t <= t_max; right: (ρ1, ρ2), the momenta in the orthonormal adapted frame, which move on the
    circle ρ1² + ρ2² = 2H from near (0, -0.6) to near (0, +0.6).

    Args:
        results: single-trajectory chaplygin_sleigh results with q[0..2] and p[0..2], one per
            initial state (examples/sleigh_prop41.json's two states ρ1 = ±0.001, one per job).
        integrator: draw only this integrator id (or ids); None = every choice.
        t_max: the path panel stops at this time (the paper shows a partial path); None = all.

    Returns:
        The matplotlib Figure. x1, x2 in m; ρ in kg^(1/2) m/s (H = (ρ1² + ρ2²) / 2 in J).
    """
    protos = [as_proto(r) for r in (results if isinstance(results, (list, tuple))
                                     else [results])]
    fig, ((path, rho),) = _subplots(2, width=5.4, height=4.3,
                                    gridspec_kw={"width_ratios": [1.5, 1]})
    styles = ["-", "--", ":", "-."]
    for n, proto in enumerate(protos):
        _require(proto, "chaplygin_sleigh", "plot_celledoni2019_fig3")
        _single(proto, "plot_celledoni2019_fig3")
        for _, label, choice in _picked(proto, integrator):
            rho1, rho2 = _sleigh_rho(proto, choice)
            style = {"color": _color(choice.choice.integrator),
                     "linestyle": styles[n % len(styles)], "linewidth": 1.0}
            name = f"{label}, ρ1(0) = {rho1[0]:+.3g}"
            t = np.asarray(choice.sample_times, dtype=float)
            keep = t <= t_max if t_max is not None else np.ones(len(t), dtype=bool)
            path.plot(_mean(choice, "q[0]")[1][keep], _mean(choice, "q[1]")[1][keep],
                      label=name, **style)
            path.plot(_mean(choice, "q[0]")[1][:1], _mean(choice, "q[1]")[1][:1], marker="o",
                      color=style["color"], markersize=4)
            rho.plot(rho1, rho2, label=name, **style)
            rho.plot(rho1[:1], rho2[:1], marker="o", color=style["color"], markersize=4)
    path.set_xlabel(r"$x_1$ [m]")
    path.set_ylabel(r"$x_2$ [m]")
    path.set_aspect("equal", adjustable="datalim")
    _finish(path, "contact point path" + (f", t ≤ {t_max:g} s" if t_max is not None else ""))
    rho.set_xlabel(r"$\rho_1$ [kg$^{1/2}$ m/s]")
    rho.set_ylabel(r"$\rho_2$ [kg$^{1/2}$ m/s]")
    rho.set_aspect("equal", adjustable="datalim")
    _finish(rho, "momenta (ρ1, ρ2)", legend=False)
    h = protos[0].integrators[0].choice.h if protos and protos[0].integrators else math.nan
    t_end = protos[0].integrators[0].sample_times[-1] if protos else math.nan
    fig.suptitle(f"Celledoni2019 Fig. 3: Chaplygin sleigh from the unstable to the stable "
                 f"equilibrium (h = {h:g} s, t ≤ {t_end:g} s; dots: start)")
    return fig


def plot_celledoni2019_fig4(result, extremes=True):
    """[Celledoni2019] Fig. 4 (§4.4): the gearbox driven by an asymmetric pendulum over long times.
    Left: relative energy error |H(t) - H(0)| / |H(0)|; right: the constraint error
    |p1 + sin(q3) p2|; log scales. One colour per method: the median over the ensemble (solid)
    and its maximum (thin), or the trajectory itself for a single one (the paper runs one
    random state; examples/gearbox_fig4.json 8).

    Returns:
        The matplotlib Figure. Every quantity is dimensionless.
    """
    proto = as_proto(result)
    _require(proto, "gearbox", "plot_celledoni2019_fig4")
    several = proto.n_trajectories > 1
    fig, ((energy, constraint),) = _subplots(2, width=5.6, height=4.2)
    for ax, observable, ylabel in (
            (energy, "relative_energy_error", r"$|H(t) - H(0)|\,/\,|H(0)|$"),
            (constraint, "constraint_residual", r"constraint error $|p_1 + \sin(q_3)\,p_2|$")):
        for _, label, integrator in _picked(proto):
            series = _series(integrator, observable)
            if series is None:
                raise _missing(proto, observable)
            t, (median, high) = _arrays(integrator, series, ["q50", "max"])
            color = _color(integrator.choice.integrator)
            ax.plot(t, _positive(median), color=color, linewidth=1.0,
                    label=f"{label} (median)" if several else label)
            if extremes and several:
                ax.plot(t, _positive(high), color=color, linewidth=0.5, alpha=0.6,
                        label=f"{label} (max)")
        ax.set_xlabel(axis_label("t", "1"))
        ax.set_ylabel(axis_label(ylabel, "1"))
        _finish(ax, log=True, legend=False)
    energy.legend(fontsize="x-small", loc="lower right", ncols=2 if several else 1)
    what = (f", median and max over {proto.n_trajectories} states on the energy shell"
            if several else "")
    fig.suptitle(f"Celledoni2019 Fig. 4: gearbox, h = {proto.integrators[0].choice.h:g}{what}")
    return fig

"""matplotlib figures of ensemble results.

Each function takes a result (nhsim.Result, an nhsim.v1.EnsembleResult or the path of a result
file), draws one line per integrator choice against the sample time t, and returns the Axes
(a Figure for plot_overview). Pass ``ax`` to draw into an existing Axes; otherwise a new figure
is made with pyplot (shown inline in a notebook). Axes are labelled with units where the
system's units are known (SI for the mechanical systems, dimensionless for the model problems).

Headless use (scripts, tests): select the Agg backend first, e.g. MPLBACKEND=Agg or
``matplotlib.use("Agg")``; ``python3 -m nhsim plot`` does.
"""

import math
import re

import numpy as np

from nhsim.results import as_proto, choice_labels
from nhsim.units import axis_label, observable_unit, time_unit

# Axis names of the default observables (mathtext).
_NAMES = {
    "energy_error": r"$H(t) - H(0)$",
    "relative_energy_error": r"$|H(t) - H(0)|\,/\,|H(0)|$",
    "constraint_residual": r"constraint residual $\max_\alpha |\mu^\alpha(q) M^{-1} p|$",
    "position_constraint_residual": r"position residual $\max_k |g_k(q)|$",
    "velocity_constraint_residual": r"velocity residual $\max_k |(G(q) M^{-1} p)_k|$",
}


def _new_axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    _, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    return ax


def _series(integrator, observable):
    for series in integrator.observables:
        if series.observable == observable:
            return series
    return None


def _arrays(integrator, series, fields):
    """t and the named statistics of a series as float arrays of one length, NaN where count
    is 0 (no successful trajectory at that sample)."""
    t = np.asarray(integrator.sample_times, dtype=float)
    count = np.zeros(len(t), dtype=np.int64)
    count[:min(len(t), len(series.count))] = series.count[:len(t)]
    out = []
    for name in fields:
        values = np.full(len(t), np.nan)
        data = getattr(series, name)[:len(t)]
        values[:len(data)] = data
        values[count == 0] = np.nan
        out.append(values)
    return t, out


def _positive(values):
    """values with the non-positive entries masked (NaN), for a log axis."""
    values = np.array(values, dtype=float)
    values[~(values > 0)] = np.nan
    return values


def _wants_log(arrays):
    """True when the values are non-negative and their positive part spans over two decades."""
    values = np.concatenate([np.ravel(a) for a in arrays]) if arrays else np.empty(0)
    values = values[np.isfinite(values)]
    positive = values[values > 0]
    return (len(positive) > 0 and np.all(values >= 0)
            and positive.max() > 100 * positive.min())


def _choices_with(proto, observable):
    """(label, IntegratorResult, SeriesStats) of each choice that has the observable."""
    return [(label, integrator, _series(integrator, observable))
            for label, integrator in zip(choice_labels(proto), proto.integrators)
            if _series(integrator, observable) is not None]


def _missing(proto, observable):
    known = sorted({s.observable for i in proto.integrators for s in i.observables})
    return ValueError(f"observable {observable!r} is not in the result (it has: "
                      f"{', '.join(known) or 'none'})")


def plot_energy_variance(result, ax=None, observable="energy_error", fit=True, loglog=True):
    """The variance of H(t) - H(0) over the ensemble against t, one line per choice, on log
    scales ([Celledoni2019] Fig. 2, bottom right: a random walk whose variance grows linearly in t,
    a line of slope 1 on log-log axes, for the methods that do not preserve energy; round-off
    for those that do).

    Args:
        result: nhsim.Result, EnsembleResult or a result file's path.
        ax: the Axes to draw into; None = a new figure.
        observable: the series whose variance is drawn (default energy_error).
        fit: also draw the growth model a + b t (variance_growth, dashed, over the sample times
            of its fit) and give b / h⁴ with its standard error in the legend.
        loglog: log t axis too (t = 0 is left out); False = linear t, log variance.

    Returns:
        The Axes. x: t (time unit); y: the unbiased variance (energy unit squared).
    """
    proto = as_proto(result)
    choices = _choices_with(proto, observable)
    if not choices:
        raise _missing(proto, observable)
    ax = _new_axes(ax)
    for label, integrator, series in choices:
        t, (variance,) = _arrays(integrator, series, ["variance"])
        if loglog:
            t, variance = t[t > 0], variance[t > 0]
        growth = series.variance_growth
        has_fit = fit and series.HasField("variance_growth") and growth.samples >= 2
        h4 = integrator.choice.h ** 4
        note = (f", b/h⁴ = {growth.b / h4:.3g} ± {growth.b_stderr / h4:.2g}" if has_fit else "")
        (line,) = ax.plot(t, _positive(variance), label=f"{label}{note}")
        if has_fit:
            t_fit = t[(t >= growth.t_min) & (t <= growth.t_max)]
            ax.plot(t_fit, _positive(growth.a + growth.b * t_fit), linestyle="--",
                    linewidth=0.8, color=line.get_color())
    ax.set_yscale("log")
    if loglog:
        ax.set_xscale("log")
    ax.set_xlabel(axis_label("t", time_unit(proto.system)))
    name = "H(t) - H(0)" if observable == "energy_error" else observable
    ax.set_ylabel(axis_label(f"Var[{name}]", observable_unit(proto.system, observable), power=2))
    title = f"{proto.system}: variance over {proto.n_trajectories} trajectories"
    ax.set_title(title + (" (dashed: a + b t)" if fit else ""), fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def plot_energy_error(result, ax=None, band=True):
    """The mean relative energy error |H(t) - H(0)| / |H(0)| against t with its 5-95 %
    quantile band (shaded) and median (thin line), one colour per choice, on a log scale.

    Falls back to the signed H(t) - H(0) (mean, band, linear scale) when the result has no
    relative_energy_error.

    Returns:
        The Axes. x: t (time unit); y: dimensionless (or energy unit for the fallback).
    """
    proto = as_proto(result)
    observable = "relative_energy_error"
    if not _choices_with(proto, observable):
        observable = "energy_error"
    return plot_observable(proto, observable, ax=ax, band=band,
                           log=True if observable == "relative_energy_error" else None)


def plot_observable(result, observable, ax=None, band=True, log=None, extremes=False):
    """Any observable's ensemble mean against t, one colour per choice, with the 5-95 %
    quantile band (shaded) and the median (thin line).

    Args:
        result: nhsim.Result, EnsembleResult or a result file's path.
        observable: the observable's name, e.g. "constraint_residual", "q[0]", "x_s".
        ax: the Axes to draw into; None = a new figure.
        band: draw the q05-q95 band and the median q50.
        log: log y scale; None = when the values are non-negative and span over two decades.
        extremes: also draw min and max (dotted).

    Returns:
        The Axes. x: t (time unit); y: the observable's unit.

    Raises:
        ValueError: no choice has this observable (the message lists the ones there are).
    """
    proto = as_proto(result)
    choices = _choices_with(proto, observable)
    if not choices:
        raise _missing(proto, observable)
    ax = _new_axes(ax)
    fields = ["mean", "q05", "q50", "q95", "min", "max"]
    drawn = [(label, _arrays(integrator, series, fields)) for label, integrator, series
             in choices]
    if log is None:
        log = _wants_log([values for _, (_, arrays) in drawn for values in arrays[:4]])
    fix = _positive if log else np.asarray
    for label, (t, (mean, q05, q50, q95, low, high)) in drawn:
        (line,) = ax.plot(t, fix(mean), label=label)
        color = line.get_color()
        has_quantiles = np.any(np.isfinite(q05)) and np.any(np.isfinite(q95))
        if band and has_quantiles:
            ax.fill_between(t, fix(q05), fix(q95), color=color, alpha=0.2, linewidth=0)
            ax.plot(t, fix(q50), color=color, linewidth=0.7, alpha=0.8)
        if extremes:
            ax.plot(t, fix(low), color=color, linewidth=0.6, linestyle=":")
            ax.plot(t, fix(high), color=color, linewidth=0.6, linestyle=":")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(axis_label("t", time_unit(proto.system)))
    ax.set_ylabel(axis_label(_NAMES.get(observable, observable),
                         observable_unit(proto.system, observable)))
    shown = "mean, median and 5–95 % band" if band else "mean"
    ax.set_title(f"{proto.system}: {observable}, {shown}", fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def plot_overview(result):
    """A figure of three panels: plot_energy_variance, plot_energy_error and the constraint
    residual (plot_observable), those the result has.

    Returns:
        The matplotlib Figure.
    """
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    proto = as_proto(result)
    panels = []
    if _choices_with(proto, "energy_error"):
        panels.append(plot_energy_variance)
    if _choices_with(proto, "relative_energy_error") or _choices_with(proto, "energy_error"):
        panels.append(plot_energy_error)
    if _choices_with(proto, "constraint_residual"):
        panels.append(lambda r, ax: plot_observable(r, "constraint_residual", ax=ax,
                                                    band=False))
    if not panels:
        raise ValueError("the result has none of energy_error, relative_energy_error and "
                         "constraint_residual: draw its observables with plot_observable")
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6),
                             layout="constrained", squeeze=False)
    for draw, ax in zip(panels, axes[0]):
        draw(proto, ax=ax)
    title = proto.system + (f": {proto.label}" if proto.label else "")
    fig.suptitle(title + (f" (job {proto.job_id[:8]})" if proto.job_id else ""))
    return fig


# ---------------------------------------------------------------------------------------------
# The paper figures: one function per figure of the papers that nhsim reproduces
# (docs/experiments-seed00N.md shows each beside what the paper reports; scripts/figures runs
# the example specs and draws them all into docs/figures). They read the aggregate statistics
# of a result: for a single-trajectory run (n_trajectories = 1) the mean at each sample time is
# that trajectory's value. Functions that draw a path or a difference of samples need such a
# result and raise ValueError otherwise. A figure of one panel takes ``ax=`` and returns the
# Axes; a figure of several panels returns the Figure.
# ---------------------------------------------------------------------------------------------

# One colour per integrator id, the same in every paper figure.
_COLORS = {
    "gonzalez": "C0", "gonzalez_r": "C0", "ggl": "C0", "em": "C0", "mla": "C0",
    "nh_rattle": "C0", "avf": "C1", "gonzalez_f": "C1", "rdp_cay": "C1", "spark2": "C2",
    "rdp_exp": "C2", "si_dla": "C3", "dla": "C3", "rk2": "C3", "i_dla": "C4",
    "nh_rattle_projected": "C9", "itoh_abe": "C5", "midpoint": "C6", "rk4": "C7",
    "exact": "black",
}
# The three components of a vector (Pi, sam, d3).
_COMPONENT_COLORS = ("C0", "C1", "C2")


def _color(integrator):
    return _COLORS.get(integrator, None)


def _require(proto, systems, figure):
    """Raises ValueError unless the result's system is one of systems."""
    systems = (systems,) if isinstance(systems, str) else tuple(systems)
    if proto.system not in systems:
        raise ValueError(f"{figure} draws a {' or '.join(systems)} result, "
                         f"got {proto.system or 'no system'}")


def _single(proto, figure):
    """Raises ValueError unless the result holds exactly one trajectory."""
    if proto.n_trajectories != 1:
        raise ValueError(f"{figure} draws single trajectories: this result has "
                         f"{proto.n_trajectories} (submit one state per job)")


def _picked(proto, integrator=None):
    """(index, label, IntegratorResult) of each choice, those of the integrator id(s) only when
    integrator is given (a str or a sequence of str)."""
    labels = choice_labels(proto)
    if isinstance(integrator, str):
        integrator = (integrator,)
    picked = [(k, labels[k], i) for k, i in enumerate(proto.integrators)
              if integrator is None or i.choice.integrator in integrator]
    if not picked:
        have = ", ".join(sorted({i.choice.integrator for i in proto.integrators})) or "none"
        raise ValueError(f"no choice of integrator {', '.join(integrator)} in the result "
                         f"(it has: {have})")
    return picked


def _mean(integrator, observable, field="mean"):
    """t and one statistic of an observable as float arrays (NaN where no trajectory was
    sampled); ValueError when the choice does not have the observable."""
    series = _series(integrator, observable)
    if series is None:
        known = ", ".join(s.observable for s in integrator.observables) or "none"
        raise ValueError(f"observable {observable!r} is not in the result's "
                         f"{integrator.choice.integrator} choice (it has: {known})")
    t, (values,) = _arrays(integrator, series, [field])
    return t, values


def _reference_index(proto, reference):
    """The index of the reference choice (negative counts from the end), or None."""
    if reference is None:
        return None
    n = len(proto.integrators)
    if not -n <= reference < n:
        raise ValueError(f"reference choice {reference} is not in the result ({n} choices)")
    return reference % n


def _subplots(ncols, nrows=1, width=6.0, height=4.3, **kwargs):
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                        layout="constrained", squeeze=False, **kwargs)


def _finish(ax, title=None, legend=True, log=False):
    if log:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    if title:
        ax.set_title(title, fontsize="medium")
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    return ax


def _style(label, integrator, k, reference, linewidth=1.0):
    """Line keywords of a choice: its integrator's colour, the reference black and dashed."""
    if k == reference:
        return {"color": "black", "linestyle": "--", "linewidth": 1.0,
                "label": f"{label} (reference)"}
    return {"color": _color(integrator.choice.integrator), "label": label,
            "linewidth": linewidth}


def _sample_step(integrator):
    """The interval between the first two sample times (time unit), or NaN."""
    t = integrator.sample_times
    return t[1] - t[0] if len(t) > 1 else math.nan


def _conserved(ax, lines, symbol, unit):
    """For quantities that stay constant to 1e-6 of their size: a y range of ±1 % about the
    value with plain tick labels (no offset), and the largest change written into the panel.

    lines: [(name, values)]; returns True when it applied."""
    values = np.concatenate([v[np.isfinite(v)] for _, v in lines])
    if len(values) == 0:
        return False
    size = np.max(np.abs(values))
    if size == 0 or np.ptp(values) > 1e-6 * size:
        return False
    center = 0.5 * (values.max() + values.min())
    ax.set_ylim(center - 0.01 * size, center + 0.01 * size)
    ax.ticklabel_format(axis="y", useOffset=False)
    text = "\n".join(f"{name}: max |{symbol}(t) - {symbol}(0)| = "
                      f"{np.nanmax(np.abs(v - v[0])):.2g} {unit}".rstrip()
                      for name, v in lines)
    ax.text(0.03, 0.05, text, transform=ax.transAxes, fontsize="small")
    return True


# --- [AnahorySimoes2022]: MLA against DLA ---------------------------------------------------------

def plot_seed000_fig2(result, ax=None):
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
    _require(proto, "nonholonomic_particle", "plot_seed000_fig2")
    ax = _new_axes(ax)
    for k, label, integrator in _picked(proto):
        t, error = _mean(integrator, "energy_error")
        ax.plot(t, _positive(np.abs(error)), **_style(label, integrator, k, None))
    ax.set_xlabel(axis_label("t", "1"))
    ax.set_ylabel(axis_label(r"$|H(t) - H(0)|$", "1"))
    return _finish(ax, "seed 000 Fig. 2: particle, energy error "
                       f"(h = {proto.integrators[0].choice.h:g})", log=True)


def plot_seed000_fig3(result, ax=None, reference="exact"):
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
    _require(proto, "nonholonomic_particle", "plot_seed000_fig3")
    _single(proto, "plot_seed000_fig3")
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
    return _finish(ax, "seed 000 Fig. 3: particle, error against eq. (19)", log=True)


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


def plot_seed000_fig5(result, ax=None):
    """[AnahorySimoes2022] Fig. 5 (Example 4): the energy error |H(t) - H(0)| of MLA and DLA on the
    knife edge with potential x/2 (examples/knife_edge_fig5.json), log scale: both oscillate without
    drift, MLA about 100 times below DLA.

    Returns:
        The Axes. x: t (dimensionless); y: |H(t) - H(0)| (dimensionless).
    """
    return _knife_edge_energy(result, ax, "plot_seed000_fig5",
                              "seed 000 Fig. 5: knife edge")


def plot_seed000_fig6(result, ax=None):
    """[AnahorySimoes2022] Fig. 6 (Example 5): as plot_seed000_fig5 on the perturbed knife edge
    (ε = 0.1, examples/knife_edge_fig6.json): both drift, MLA far less than DLA.

    Returns:
        The Axes. x: t (dimensionless); y: |H(t) - H(0)| (dimensionless).
    """
    return _knife_edge_energy(result, ax, "plot_seed000_fig6",
                              "seed 000 Fig. 6: perturbed knife edge")


# --- [Celledoni2019]: discrete gradients ----------------------------------------------------------

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
    significant; curves at round-off (the discrete gradients, 20 decades below) are named in a
    note instead of stretching the axis over them."""
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
                       and growth.b > 2 * growth.b_stderr)
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


def plot_seed001_fig2(order=None, trajectory=None, variance=None, reference="rk4"):
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
        raise ValueError("plot_seed001_fig2 needs at least one of order, trajectory, variance")
    for proto, _ in panels:
        _require(proto, "chaotic_quartic", "plot_seed001_fig2")
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
    fig.suptitle("seed 001 Fig. 2: chaotic quartic system (n = 3, H = 3.06)")
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


def plot_seed001_fig3(results, integrator=None, t_max=None):
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
        _require(proto, "chaplygin_sleigh", "plot_seed001_fig3")
        _single(proto, "plot_seed001_fig3")
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
    fig.suptitle(f"seed 001 Fig. 3: Chaplygin sleigh from the unstable to the stable "
                 f"equilibrium (h = {h:g} s, t ≤ {t_end:g} s; dots: start)")
    return fig


def plot_seed001_fig4(result, extremes=True):
    """[Celledoni2019] Fig. 4 (§4.4): the gearbox driven by an asymmetric pendulum over long times.
    Left: relative energy error |H(t) - H(0)| / |H(0)|; right: the constraint error
    |p1 + sin(q3) p2|; log scales. One colour per method: the median over the ensemble (solid)
    and its maximum (thin), or the trajectory itself for a single one (the paper runs one
    random state; examples/gearbox_fig4.json 8).

    Returns:
        The matplotlib Figure. Every quantity is dimensionless.
    """
    proto = as_proto(result)
    _require(proto, "gearbox", "plot_seed001_fig4")
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
    fig.suptitle(f"seed 001 Fig. 4: gearbox, h = {proto.integrators[0].choice.h:g}{what}")
    return fig


# --- [Kobilarov2010]: GNI and RDP -----------------------------------------------------------------

def plot_seed002_fig2(results, reference=-1, inset=True):
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
        _require(proto, "chaplygin_sleigh_com", "plot_seed002_fig2")
        _single(proto, "plot_seed002_fig2")
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
    fig.suptitle("seed 002 Fig. 2: Chaplygin sleigh about the centre of mass")
    return fig


def plot_seed002_fig4(result, reference=-1):
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
    _require(proto, "snakeboard", "plot_seed002_fig4")
    _single(proto, "plot_seed002_fig4")
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
    fig.suptitle(f"seed 002 Fig. 4: snakeboard, h = {coarse:g} s "
                 f"(N = {round(proto.integrators[0].sample_times[-1] / coarse)})")
    return fig


# --- [Kinon2023]: the GGL integrator on the top and the four-bar linkage ------------------------

def _ggl_series(result, system, figure, integrator):
    proto = as_proto(result)
    _require(proto, system, figure)
    _single(proto, figure)
    return proto, _picked(proto, integrator)


# Windows of Figs. 18-21's envelopes: about one per two pixels of a 5.6-inch panel at 100 dpi.
_WINDOWS = 250


def _envelope(t, values, windows):
    """|values| in at most `windows` windows of consecutive samples, each of 1, 2 or 5 times
    10^k samples: (the window's duration, each window's middle time, its max, its median), NaN
    where a window has no finite value."""
    size = max(1, math.ceil(len(t) / windows))
    size = min(n * 10 ** math.floor(math.log10(size)) for n in (1, 2, 5, 10)
               if n * 10 ** math.floor(math.log10(size)) >= size)  # 1, 2 or 5 times 10^k
    count = len(t) // size * size
    if count < len(t):  # the last, shorter window: pad it with NaN
        count += size
    pad = count - len(t)
    blocks = np.concatenate([np.abs(values), np.full(pad, np.nan)]).reshape(-1, size)
    times = np.concatenate([t, np.full(pad, np.nan)]).reshape(-1, size)
    finite = np.isfinite(blocks).any(axis=1)
    top, middle = np.full(len(blocks), np.nan), np.full(len(blocks), np.nan)
    top[finite] = np.nanmax(blocks[finite], axis=1)
    middle[finite] = np.nanmedian(blocks[finite], axis=1)
    duration = t[min(size, len(t) - 1)] - t[0] if len(t) > 1 else math.nan
    return duration, np.nanmean(times, axis=1), top, middle


def _lines(result, system, figure, integrator, ax, observable, ylabel, title, log=False,
           conserved=None, envelope=None):
    """Draws one observable of each picked choice of a single-trajectory result against t.
    log: |values| on a log scale (thin lines: round-off is noisy). conserved: (symbol, unit)
    of a quantity that may be constant, for _conserved. envelope: with log, a number of
    windows: a series with over four samples per window is drawn as the max of |values| in
    each window (every peak kept) and, thin and pale, the median (the round-off level),
    instead of a line through every sample that fills the panel."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    drawn = []
    enveloped = False
    for k, label, choice in picked:
        t, values = _mean(choice, observable)
        drawn.append((label, values))
        if log and envelope and len(t) > 4 * envelope:
            enveloped = True
            duration, middle, top, median = _envelope(t, values, envelope)
            style = _style(label, choice, k, None, linewidth=0.9)
            style["label"] = f"{label}: max over {duration:.2g} {time_unit(system) or ''}".rstrip()
            line = ax.plot(middle, _positive(top), **style)[0]
            ax.plot(middle, _positive(median), color=line.get_color(), linewidth=0.6,
                    alpha=0.45, label=f"{label}: median")
            continue
        if log:
            values = _positive(np.abs(values))
        ax.plot(t, values, **_style(label, choice, k, None, linewidth=0.5 if log else 1.0))
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel(ylabel)
    if conserved is not None:
        _conserved(ax, drawn, *conserved)
    if not enveloped:
        return _finish(ax, title, log=log)
    _finish(ax, title, legend=False, log=log)
    low, high = ax.get_ylim()  # a decade and more of room above the peaks for the legend
    ax.set_ylim(low, high * (high / low) ** 0.18)
    ax.legend(fontsize="small", loc="upper center", ncols=2)
    return ax


def _increments(t, values):
    """The differences of consecutive samples, at the later sample's time."""
    return t[1:], np.diff(values)


def _energies(result, system, figure, integrator, ax, title):
    """T, V and H = T + V of the picked choices against t (colours C0, C1, C2)."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, kinetic = _mean(choice, "kinetic_energy")
        potential = _mean(choice, "potential_energy")[1]
        suffix = f", {label}" if len(picked) > 1 else ""
        for values, name, color in ((kinetic, "T", "C0"), (potential, "V", "C1"),
                                    (kinetic + potential, "H = T + V", "C2")):
            ax.plot(t, values, color=color, linewidth=1.0, label=name + suffix,
                    linestyle=["-", "--", ":"][k % 3])
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel("energy [J]")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.2 * (high - low))  # room for the legend
    _finish(ax, title, legend=False)
    ax.legend(fontsize="small", loc="upper center", ncols=3)
    return ax


def _h_increments(result, system, figure, integrator, ax, title, observable="energy_error",
                  ylabel=r"$H(t_{n+1}) - H(t_n)$ [J]"):
    """The differences of an observable between consecutive samples of the picked choices."""
    _, picked = _ggl_series(result, system, figure, integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, values = _increments(*_mean(choice, observable))
        ax.plot(t, values, **_style(label, choice, k, None, linewidth=0.6))
        step = _sample_step(choice) / choice.choice.h
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel(ylabel)
    per = "per step" if round(step) == 1 else f"per {step:g} steps"
    return _finish(ax, f"{title} ({per})")


def plot_seed003_fig3(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 3 (§5.1): the top's kinetic energy T, potential energy V and H = T + V
    (examples/top_precession.json, a single trajectory).

    Args:
        result: a single-trajectory gyroscopic_top result with kinetic_energy and
            potential_energy.
        ax: the Axes to draw into; None = a new figure.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "gyroscopic_top", "plot_seed003_fig3", integrator, ax,
                     "seed 003 Fig. 3: top, energy quantities")


def plot_seed003_fig4(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 4 (§5.1): the top's angular momentum L₃ about e₃ (conserved).

    Returns:
        The Axes. x: t [s]; y: L₃ [kg m²/s].
    """
    return _lines(result, "gyroscopic_top", "plot_seed003_fig4", integrator, ax,
                  "L3", r"$L_3$ [kg m²/s]",
                  "seed 003 Fig. 4: top, angular momentum about $e_3$",
                  conserved=("L₃", "kg m²/s"))


def plot_seed003_fig5(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 5 (§5.1): the top's Hamiltonian increments H(t_{n+1}) - H(t_n) between
    consecutive samples (per step when sampled every step): bounded, no drift.

    Returns:
        The Axes. x: t [s]; y: the increment [J].
    """
    return _h_increments(result, "gyroscopic_top", "plot_seed003_fig5", integrator, ax,
                         "seed 003 Fig. 5: top, Hamiltonian increments")


def plot_seed003_fig6(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 6 (§5.1): the top's angular momentum increments L₃(t_{n+1}) - L₃(t_n):
    round-off.

    Returns:
        The Axes. x: t [s]; y: the increment [kg m²/s].
    """
    return _h_increments(result, "gyroscopic_top", "plot_seed003_fig6", integrator, ax,
                         "seed 003 Fig. 6: top, $L_3$ increments", observable="L3",
                         ylabel=r"$L_3(t_{n+1}) - L_3(t_n)$ [kg m²/s]")


def plot_seed003_fig7(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 7 (§5.1): the position-level constraints of the top. The paper draws each
    of the nine g_k; nhsim returns their maximum max_k |g_k(q)| (position_constraint_residual),
    log scale: round-off for ggl.

    Returns:
        The Axes. x: t [s]; y: max_k |g_k(q)|, mixed units as in the paper: the
        orthonormality constraints are dimensionless, the fixed tip's in m.
    """
    return _lines(result, "gyroscopic_top", "plot_seed003_fig7", integrator, ax,
                  "position_constraint_residual",
                  r"$\max_k |g_k(q)|$ (dimensionless; m for the tip)",
                  "seed 003 Fig. 7: top, position-level constraints", log=True)


def plot_seed003_fig8(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 8 (§5.1): the velocity-level constraints of the top at the step ends,
    max_k |(G(q) M⁻¹ p)_k| (velocity_constraint_residual; the paper draws each k): not zero,
    since ggl enforces them at the intermediate point only (eq. (41e)).

    Returns:
        The Axes. x: t [s]; y: max_k |(G M⁻¹ p)_k| [1/s; m/s for the tip].
    """
    return _lines(result, "gyroscopic_top", "plot_seed003_fig8", integrator, ax,
                  "velocity_constraint_residual",
                  r"$\max_k |(G(q) M^{-1} p)_k|$ [1/s; m/s for the tip]",
                  "seed 003 Fig. 8: top, velocity-level constraints at the step ends")


def plot_seed003_fig9(result, ax=None, integrator="ggl", observable="phi3"):
    """[Kinon2023] Fig. 9 (§5.1): h-convergence, the relative error
    e = |φ₃(t_final) - φ₃(0)| / φ₃(0) (eq. (69); φ₃(0) = 0.0375 m is the exact steady value)
    against h, log-log, with a slope-1 guide (examples/top_convergence.json).

    Returns:
        The Axes. x: h [s]; y: e (dimensionless).
    """
    proto, picked = _ggl_series(result, "gyroscopic_top", "plot_seed003_fig9", integrator)
    ax = _new_axes(ax)
    h, e = [], []
    for _, _, choice in picked:
        values = _mean(choice, observable)[1]
        h.append(choice.choice.h)
        e.append(abs(values[-1] - values[0]) / abs(values[0]))
    order = np.argsort(h)
    h, e = np.asarray(h)[order], np.asarray(e)[order]
    ax.plot(h, e, marker="o", color=_color(picked[0][2].choice.integrator),
            label=", ".join(dict.fromkeys(c.choice.integrator for _, _, c in picked)))
    ax.plot(h, 0.5 * e[-1] * h / h[-1], color="gray", linestyle=":",
            label=r"slope 1 ($\propto h$)")
    if len(h) > 1:
        slope = np.polyfit(np.log(h), np.log(e), 1)[0]
        ax.text(0.95, 0.05, f"least-squares slope {slope:.4f}", transform=ax.transAxes,
                fontsize="small", ha="right")
    ax.set_xscale("log")
    ax.set_xlabel(axis_label("step h", "s"))
    ax.set_ylabel(axis_label(r"$e = |\varphi_3(t) - \varphi_3(0)|\,/\,\varphi_3(0)$, "
                         f"t = {proto.integrators[0].sample_times[-1]:g} s", "1"))
    return _finish(ax, "seed 003 Fig. 9: top, h-convergence", log=True)


def plot_seed003_fig10(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 10 (§5.1): the height φ₃ of the top's centre of mass, which oscillates
    about the steady-precession value φ₃(0) = 0.0375 m (dotted).

    Returns:
        The Axes. x: t [s]; y: φ₃ [m].
    """
    ax = _lines(result, "gyroscopic_top", "plot_seed003_fig10", integrator, ax,
                "phi3", r"$\varphi_3$ [m]",
                "seed 003 Fig. 10: top, height of the centre of mass")
    proto = as_proto(result)
    start = _mean(_picked(proto, integrator)[0][2], "phi3")[1][0]
    ax.axhline(start, color="black", linestyle=":", linewidth=1.0,
               label=f"steady value {start:g} m")
    ax.legend(fontsize="small")
    return ax


def plot_seed003_fig12(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 12 (§5.2): the 1-coordinate x₄ of joint P₄ of the double four-bar linkage
    (examples/four_bar.json).

    Returns:
        The Axes. x: t [s]; y: x₄ [m].
    """
    return _lines(result, "four_bar", "plot_seed003_fig12", integrator, ax,
                  "x4", r"$x_4$ [m]", "seed 003 Fig. 12: 1-coordinate of P₄")


def plot_seed003_fig13(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 13 (§5.2): the 1-velocity v₄ of joint P₄.

    Returns:
        The Axes. x: t [s]; y: v₄ [m/s].
    """
    return _lines(result, "four_bar", "plot_seed003_fig13", integrator, ax,
                  "v4x", r"$v_4$ [m/s]", "seed 003 Fig. 13: 1-velocity of P₄")


def plot_seed003_fig14(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 14 (§5.2): the linkage's kinetic energy T, potential energy V and
    H = T + V.

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "four_bar", "plot_seed003_fig14", integrator, ax,
                     "seed 003 Fig. 14: four-bar linkage, energy quantities")


def plot_seed003_fig15(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 15 (§5.2): the linkage's angular momentum L (eq. (75)), not conserved
    under gravity.

    Returns:
        The Axes. x: t [s]; y: L [kg m²/s].
    """
    return _lines(result, "four_bar", "plot_seed003_fig15", integrator, ax,
                  "L", r"$L$ [kg m²/s]",
                  "seed 003 Fig. 15: four-bar linkage, angular momentum")


def plot_seed003_fig16(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 16 (§5.2): the linkage's Hamiltonian increments H(t_{n+1}) - H(t_n)
    (per step when sampled every step; the paper: of order 1e-3 and stable).

    Returns:
        The Axes. x: t [s]; y: the increment [J].
    """
    return _h_increments(result, "four_bar", "plot_seed003_fig16", integrator, ax,
                         "seed 003 Fig. 16: four-bar, Hamiltonian increments")


def plot_seed003_fig17(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 17 (§5.2): the increments of the angular momentum L.

    Returns:
        The Axes. x: t [s]; y: the increment [kg m²/s].
    """
    return _h_increments(result, "four_bar", "plot_seed003_fig17", integrator, ax,
                         "seed 003 Fig. 17: four-bar, angular momentum increments",
                         observable="L", ylabel=r"$L(t_{n+1}) - L(t_n)$ [kg m²/s]")


def plot_seed003_fig18(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 18 (§5.2): bar 1's internal (rigidity) constraints on position level,
    max of |g^int_1| over its three (g_int_b1; the paper draws each), log scale: satisfied to
    the Newton tolerance.

    Returns:
        The Axes. x: t [s]; y: max |g^int_1(q)| (dimensionless: unit directors).
    """
    return _lines(result, "four_bar", "plot_seed003_fig18", integrator, ax,
                  "g_int_b1", r"$\max |g^{\mathrm{int}}_1(q)|$ (dimensionless)",
                  "seed 003 Fig. 18: bar 1, internal constraints, position level", log=True,
                  envelope=_WINDOWS)


def plot_seed003_fig19(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 19 (§5.2): bar 1's internal constraints on velocity level at the step ends
    (gv_int_b1, the max over the three): small, larger near the singular configurations.

    Returns:
        The Axes. x: t [s]; y: max |G^int_1 q'| [1/s].
    """
    return _lines(result, "four_bar", "plot_seed003_fig19", integrator, ax,
                  "gv_int_b1", r"$\max |G^{\mathrm{int}}_1(q)\,\dot q|$ [1/s]",
                  "seed 003 Fig. 19: bar 1, internal constraints, velocity level", log=True,
                  envelope=_WINDOWS)


def plot_seed003_fig20(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 20 (§5.2): the external constraint of joint P₄ (eq. (74b)) on position
    level (g_ext_p4, the max over its two components), log scale.

    Returns:
        The Axes. x: t [s]; y: max |g^ext_4(q)| [m].
    """
    return _lines(result, "four_bar", "plot_seed003_fig20", integrator, ax,
                  "g_ext_p4", r"$\max |g^{\mathrm{ext}}_4(q)|$ [m]",
                  "seed 003 Fig. 20: joint P₄, external constraint, position level", log=True,
                  envelope=_WINDOWS)


def plot_seed003_fig21(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 21 (§5.2): the external constraint of joint P₄ on velocity level
    (gv_ext_p4): exact at the step ends too, its Jacobian being constant.

    Returns:
        The Axes. x: t [s]; y: max |G^ext_4 q'| [m/s].
    """
    return _lines(result, "four_bar", "plot_seed003_fig21", integrator, ax,
                  "gv_ext_p4", r"$\max |G^{\mathrm{ext}}_4\,\dot q|$ [m/s]",
                  "seed 003 Fig. 21: joint P₄, external constraint, velocity level", log=True,
                  envelope=_WINDOWS)


def plot_seed003_fig22(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 22 (§5.2): T, V and H = T + V of the damped linkage (dampers η = 0.5 N s/m,
    examples/four_bar_damped.json): H decays.

    Returns:
        The Axes. x: t [s]; y: energy [J].
    """
    return _energies(result, "four_bar", "plot_seed003_fig22", integrator, ax,
                     "seed 003 Fig. 22: damped four-bar linkage, energy quantities")


def plot_seed003_fig23(result, ax=None, integrator="ggl"):
    """[Kinon2023] Fig. 23 (§5.2): the energy lost between consecutive samples,
    -(H(t_{n+1}) - H(t_n)), beside the dissipated energy of the dampers over the same interval,
    the trapezoidal sum of the dissipated power P_v = v·C v (dissipated_power). Per step when
    sampled every step.

    Returns:
        The Axes. x: t [s]; y: energy per sample interval [J].
    """
    _, picked = _ggl_series(result, "four_bar", "plot_seed003_fig23", integrator)
    ax = _new_axes(ax)
    for k, label, choice in picked:
        t, error = _mean(choice, "energy_error")
        power = _mean(choice, "dissipated_power")[1]
        color = _color(choice.choice.integrator)
        dt = np.diff(t)
        suffix = f", {label}" if len(picked) > 1 else ""
        ax.plot(t[1:], -np.diff(error), color=color, linewidth=1.2,
                label=r"lost energy $-(H_{n+1} - H_n)$" + suffix)
        ax.plot(t[1:], 0.5 * dt * (power[1:] + power[:-1]), color="black", linestyle="--",
                linewidth=0.8, label=r"dissipated $\int P_v\,dt$ (trapezoidal)" + suffix)
        step = _sample_step(choice) / choice.choice.h
    ax.set_xlabel(axis_label("t", "s"))
    ax.set_ylabel("energy per sample interval [J]")
    per = "per step" if round(step) == 1 else f"per {step:g} steps"
    return _finish(ax, f"seed 003 Fig. 23: damped four-bar, dissipated energy ({per})")


# --- [Gebhardt2020]: the rigid body in the non-twisting frame -------------------------------------

def second_quotient(result, integrator=None):
    """The second quotient of precision Q(t) = |q_h - q_{h/2}| / |q_{h/2} - q_{h/4}| ([Gebhardt2020]
    Tables 1, 3, 5 and Figs. 2, 5, 8; the Euclidean norm over the q[i] series, the nine director
    components) of each integrator that runs at three step sizes h, h/2, h/4 sampled at the
    same times (examples/nontwisting_precision.json). Q ≈ 4 for a second-order method.

    Args:
        result: a single-trajectory result with q[i] series.
        integrator: the integrator id(s) to compute (None = every one with three step sizes).

    Returns:
        {integrator id: (t, Q)}, float arrays; Q is NaN where the denominator is 0 (t = 0).
    """
    proto = as_proto(result)
    _single(proto, "second_quotient")
    quotients = {}
    for name in dict.fromkeys(c.choice.integrator for _, _, c in _picked(proto, integrator)):
        choices = sorted((c for _, _, c in _picked(proto, name)), key=lambda c: -c.choice.h)
        if len(choices) < 3:
            continue
        coarse, middle, fine = choices[:3]
        t = np.asarray(coarse.sample_times, dtype=float)
        for other in (middle, fine):
            if len(other.sample_times) != len(t) or not np.allclose(other.sample_times, t):
                raise ValueError(f"{name}: the three step sizes are not sampled at the same "
                                 "times (scale sample_every with 1/h)")
        names = [s.observable for s in coarse.observables if s.observable.startswith("q[")]
        if not names:
            raise ValueError(f"{name}: no q[i] series in the result")
        states = [np.array([_mean(c, n)[1] for n in names]) for c in (coarse, middle, fine)]
        top = np.linalg.norm(states[0] - states[1], axis=0)
        bottom = np.linalg.norm(states[1] - states[2], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            quotients[name] = (t, np.where(bottom > 0, top / bottom, np.nan))
    if not quotients:
        raise ValueError("no integrator runs at three step sizes in the result")
    return quotients


def _case_title(proto, title):
    """title with its "case N" replaced by the case the result's label names, if it names one
    (the plot functions follow the paper's figure numbers; a user may draw another case)."""
    named = re.search(r"\bcase (\d)", proto.label)
    return re.sub(r"\bcase \d", f"case {named.group(1)}", title) if named else title


def _momenta(result, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((spatial, material),) = _subplots(2, width=5.4, height=4.0)
    picked = _picked(proto, integrator)
    for ax, names, texts, what in (
            (spatial, ("sam_1", "sam_2", "sam_3"), ("SAM 1", "SAM 2", "SAM 3"), "spatial (SAM)"),
            (material, ("Pi1", "Pi2", "Pi3"), ("Π¹", "Π²", "Π³"), "material (MAM)")):
        for k, label, choice in picked:
            suffix = f", {label}" if len(picked) > 1 else ""
            for n, name in enumerate(names):
                t, values = _mean(choice, name)
                ax.plot(t, values, color=_COMPONENT_COLORS[n], linewidth=1.0,
                        linestyle=["-", "--", ":"][k % 3], label=texts[n] + suffix)
        ax.set_xlabel(axis_label("t", "s"))
        ax.set_ylabel(f"{what} angular momentum [kg m²/s]")
        _finish(ax, f"{what} angular momentum")
    names = ", ".join(dict.fromkeys(c.choice.integrator for _, _, c in picked))
    fig.suptitle(_case_title(proto, title) + f" ({names}, h = {picked[0][2].choice.h:g} s)")
    return fig


def plot_seed004_fig1(result, integrator="em"):
    """[Gebhardt2020] Fig. 1 (§6.1, case 1): the spatial angular momentum components (left, they
    oscillate) and the material ones Π¹, Π², Π³ (right: constant, Π³ = 0), from a
    single-trajectory nontwisting_body result with sam_1..3 and Pi1..3
    (examples/nontwisting_case1.json).

    Returns:
        The matplotlib Figure. x: t [s]; y: angular momentum [kg m²/s].
    """
    return _momenta(result, "plot_seed004_fig1", "seed 004 Fig. 1: case 1, angular momenta",
                    integrator)


def plot_seed004_fig4(result, integrator="em"):
    """[Gebhardt2020] Fig. 4 (§6.2, case 2, a vanishing load): as plot_seed004_fig1; the momenta
    vary while the load acts (t < 1 s), then the material ones stay constant
    (examples/nontwisting_case2.json).

    Returns:
        The matplotlib Figure.
    """
    return _momenta(result, "plot_seed004_fig4", "seed 004 Fig. 4: case 2, angular momenta",
                    integrator)


def plot_seed004_fig7(result, integrator="em"):
    """[Gebhardt2020] Fig. 7 (§6.3, case 3): as plot_seed004_fig4 for case 3
    (examples/nontwisting_case3.json).

    Returns:
        The matplotlib Figure.
    """
    return _momenta(result, "plot_seed004_fig7", "seed 004 Fig. 7: case 3, angular momenta",
                    integrator)


def _energy_precision(result, precision, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((energy, quotient),) = _subplots(2, width=5.4, height=4.0)
    drawn, lines = [], []
    for k, label, choice in _picked(proto, integrator):
        t, kinetic = _mean(choice, "kinetic_energy")
        lines.append(energy.plot(t, kinetic, **_style(label, choice, k, None))[0])
        drawn.append((label, kinetic))
    energy.set_xlabel(axis_label("t", "s"))
    energy.set_ylabel(axis_label("kinetic energy K", "J"))
    conserved = _conserved(energy, drawn, "K", "J")
    _finish(energy, "kinetic energy", legend=False)
    if _coincide(energy, lines):
        # One line would hide the others: the first wide and pale, the others dashed on top,
        # and their changes K(t) - K(0) apart in an inset when K is conserved.
        lines[0].set(linewidth=4.0, alpha=0.4, zorder=2)
        for n, line in enumerate(lines[1:]):
            line.set(linestyle=[(0, (5, 3)), (0, (1, 2)), (0, (5, 2, 1, 2))][n % 3],
                     linewidth=1.3, zorder=3)
        names = " and ".join(label for label, _ in drawn)
        energy.legend(fontsize="small", loc="upper right",
                      title=f"{names} coincide at this scale", title_fontsize="small")
        if conserved:
            changes = [kinetic - kinetic[0] for _, kinetic in drawn]
            largest = max(np.nanmax(np.abs(c)) for c in changes)
            power = math.floor(math.log10(largest)) if largest > 0 else 0
            inset = energy.inset_axes([0.1, 0.18, 0.87, 0.22])
            for change, line in zip(changes, lines):
                inset.plot(t, change / 10.0 ** power, color=line.get_color(), linewidth=1.0,
                           linestyle=line.get_linestyle())
            inset.set_title(f"K(t) - K(0) [$10^{{{power}}}$ J]", fontsize="x-small", pad=2)
            inset.set_xlim(energy.get_xlim())
            inset.tick_params(labelsize="x-small", labelbottom=False, pad=1)
            inset.grid(True, alpha=0.3)
    elif lines:
        energy.legend(fontsize="small")
    if precision is not None:
        for name, (t, q) in second_quotient(precision, integrator).items():
            quotient.plot(t, q, marker="o", markersize=3, color=_color(name), label=name)
        quotient.axhline(4, color="gray", linestyle=":", linewidth=1.0,
                         label="4 (second order)")
        low, high = quotient.get_ylim()
        quotient.set_ylim(min(low, 3.5), max(high, 4.5))
        quotient.set_xlabel(axis_label("t", "s"))
        quotient.set_ylabel(axis_label(r"$Q = |q_h - q_{h/2}|\,/\,|q_{h/2} - q_{h/4}|$", "1"))
        h = max(c.choice.h for c in as_proto(precision).integrators)
        _finish(quotient, f"second quotient of precision (h = {h:g} s)")
    else:
        quotient.set_visible(False)
    fig.suptitle(_case_title(proto, title))
    return fig


def _coincide(ax, lines):
    """True when there are several lines and all lie within 1/500 of the y range of the first
    (closer than a pixel: the last drawn hides the others)."""
    if len(lines) < 2:
        return False
    low, high = ax.get_ylim()
    first = np.asarray(lines[0].get_ydata(), dtype=float)
    for line in lines[1:]:
        other = np.asarray(line.get_ydata(), dtype=float)
        if len(other) != len(first):
            return False
        both = np.isfinite(first) & np.isfinite(other)
        if not both.any() or np.max(np.abs(other[both] - first[both])) > (high - low) / 500:
            return False
    return True


def plot_seed004_fig2(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 2 (§6.1, case 1): the kinetic energy (left, constant) and the second
    quotient of precision Q(t) (right, ≈ 4; second_quotient of the precision result).

    Args:
        result: a single-trajectory nontwisting_body result with kinetic_energy
            (examples/nontwisting_case1.json).
        precision: the same case at h, h/2, h/4 with the q[i] series
            (examples/nontwisting_precision.json); None = the left panel only.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The matplotlib Figure. K in J; Q dimensionless.
    """
    return _energy_precision(result, precision, "plot_seed004_fig2",
                             "seed 004 Fig. 2: case 1, kinetic energy and precision", integrator)


def plot_seed004_fig5(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 5 (§6.2, case 2): as plot_seed004_fig2; K grows while the load acts.

    Returns:
        The matplotlib Figure.
    """
    return _energy_precision(result, precision, "plot_seed004_fig5",
                             "seed 004 Fig. 5: case 2, kinetic energy and precision", integrator)


def plot_seed004_fig8(result, precision=None, integrator="em"):
    """[Gebhardt2020] Fig. 8 (§6.3, case 3): as plot_seed004_fig2 for case 3.

    Returns:
        The matplotlib Figure.
    """
    return _energy_precision(result, precision, "plot_seed004_fig8",
                             "seed 004 Fig. 8: case 3, kinetic energy and precision", integrator)


_SPHERE_NOTE = "\n(unit vector, dimensionless; black dot: t = 0)"


def _d3_sphere(result, ax, figure, title, integrator):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    if ax is None:
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
        fig = plt.figure(figsize=(5.6, 5.8), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 25), np.linspace(0, np.pi, 13))
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="gray",
                      linewidth=0.3, alpha=0.35)
    late = None
    for k, label, choice in _picked(proto, integrator):
        d3 = np.array([_mean(choice, f"d3_{i}")[1] for i in (1, 2, 3)])
        style = _style(label, choice, k, None, linewidth=1.2)
        # Consecutive samples more than 0.3 rad apart on the sphere (a fast spin, e.g. case 2's
        # |ω| h ≈ 2.2 rad) are not joined: the chord would cut through the sphere.
        gap = np.concatenate([[False], np.sum(np.diff(d3, axis=1) ** 2, axis=0) > 0.3 ** 2])
        joined = np.insert(d3, np.flatnonzero(gap), np.nan, axis=1)
        ax.plot(*joined, **style)
        ax.scatter(*d3, color=style["color"] or "C0", s=1.5, depthshade=False)
        ax.scatter(*d3[:, :1], color="black", s=20, marker="o", depthshade=False)
        if late is None:
            finite = d3[:, np.all(np.isfinite(d3), axis=0)]
            late = finite[:, finite.shape[1] // 2:]
    if late is not None and late.shape[1] >= 3:
        # Look at the plane of the second half of the path from 35 degrees off its normal.
        normal = np.linalg.svd(late - late.mean(axis=1, keepdims=True))[0][:, 2]
        normal = normal if normal[2] >= 0 else -normal
        elev = math.degrees(math.asin(min(1.0, abs(normal[2]))))
        azim = math.degrees(math.atan2(normal[1], normal[0]))
        ax.view_init(elev=elev + 35.0 if elev <= 50.0 else elev - 35.0, azim=azim + 20.0)
    for setter in (ax.set_xticks, ax.set_yticks, ax.set_zticks):
        setter([-1, 0, 1])
    # Upright axis labels: matplotlib turns each label along its axis as projected, which
    # mirrors or inverts it when the view puts the axis on the left or bottom edge.
    for component, axis in enumerate((ax.xaxis, ax.yaxis, ax.zaxis), start=1):
        axis.set_rotate_label(False)
        axis.set_label_text(rf"$d_{{3,{component}}}$", rotation=0, ha="center", va="center")
        axis.labelpad = 2
        axis.set_pane_color((0.95, 0.95, 0.95, 0.5))  # faint walls, no grid: the sphere's
    ax.grid(False)                                    # wireframe is the reference
    ax.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
    ax.tick_params(pad=0, labelsize="small")
    ax.set_box_aspect((1, 1, 1), zoom=0.88)
    ax.set_title(_case_title(proto, title), fontsize="medium")
    ax.legend(fontsize="small", loc="upper left", borderaxespad=0.0, handlelength=1.5)
    return ax


def plot_seed004_fig3(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 3 (§6.1, case 1): the path of the third director d₃ on the unit sphere S²
    (d3_1..3 of a single trajectory): a great circle, a geodesic.

    Args:
        result: a single-trajectory nontwisting_body result with d3_1, d3_2, d3_3.
        ax: a 3D Axes (projection="3d") to draw into; None = a new figure.
        integrator: the integrator id(s) drawn (None = every choice).

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_seed004_fig3",
                      "seed 004 Fig. 3: case 1, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def plot_seed004_fig6(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 6 (§6.2, case 2): d₃ on S², again a great circle.

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_seed004_fig6",
                      "seed 004 Fig. 6: case 2, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def plot_seed004_fig9(result, ax=None, integrator="em"):
    """[Gebhardt2020] Fig. 9 (§6.3, case 3): d₃ on S²: off a geodesic while the load turns the axis
    of rotation (t < 1 s), a great circle afterwards.

    Returns:
        The 3D Axes.
    """
    return _d3_sphere(result, ax, "plot_seed004_fig9",
                      "seed 004 Fig. 9: case 3, $d_3$ on $S^2$" + _SPHERE_NOTE, integrator)


def _d3_component(result, component, figure, number, zoom_from=4.0):
    proto = as_proto(result)
    _require(proto, ("nontwisting_body", "rigid_body"), figure)
    _single(proto, figure)
    fig, ((whole, late),) = _subplots(2, width=5.4, height=3.8)
    name = f"d3_{component}"
    for k, label, choice in _picked(proto):
        t, values = _mean(choice, name)
        style = _style(label, choice, k, None)
        whole.plot(t, values, **style)
        keep = t >= zoom_from
        late.plot(t[keep], values[keep], marker=".", markersize=2, **style)
    t_final = proto.integrators[0].sample_times[-1]
    for ax, span in ((whole, (0, t_final)), (late, (zoom_from, t_final))):
        ax.set_xlim(*span)
        ax.set_xlabel(axis_label("t", "s"))
        ax.set_ylabel(axis_label(f"$d_{{3,{component}}}$", "1"))
        _finish(ax, f"interval [{span[0]:g}, {span[1]:g}] s", legend=ax is late)
    names = " against ".join(dict.fromkeys(c.choice.integrator for c in proto.integrators))
    fig.suptitle(_case_title(proto, f"seed 004 Fig. {number}: case 1, component {component} "
                                    f"of d₃, {names} (h = {proto.integrators[0].choice.h:g} s)"))
    return fig


def plot_seed004_fig10(result):
    """[Gebhardt2020] Fig. 10 (§6.4): the first component of d₃ for every choice (em and dla of
    examples/nontwisting_case1.json) over [0, t_final] (left) and [4, 5] s (right), where the
    O(h²) phase difference shows.

    Returns:
        The matplotlib Figure. x: t [s]; y: d₃,₁ (dimensionless).
    """
    return _d3_component(result, 1, "plot_seed004_fig10", 10)


def plot_seed004_fig11(result):
    """[Gebhardt2020] Fig. 11 (§6.4): as plot_seed004_fig10 for the second component of d₃.

    Returns:
        The matplotlib Figure.
    """
    return _d3_component(result, 2, "plot_seed004_fig11", 11)


def plot_seed004_fig12(result):
    """[Gebhardt2020] Fig. 12 (§6.4): as plot_seed004_fig10 for the third component of d₃.

    Returns:
        The matplotlib Figure.
    """
    return _d3_component(result, 3, "plot_seed004_fig12", 12)

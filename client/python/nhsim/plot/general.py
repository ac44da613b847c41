"""The general plots of an ensemble result: the energy-error variance, the relative energy error,
any observable with its quantile band, and an overview of three panels.

Each function takes a result (nhsim.Result, an nhsim.v1.EnsembleResult or the path of a result
file), draws one line per integrator choice against the sample time t, and returns the Axes
(a Figure for plot_overview). Axes carry units where nhsim.units knows the system's.
"""

import numpy as np

from nhsim.plot._common import (_arrays, _choices_with, _missing, _new_axes, _positive,
                                _wants_log)
from nhsim.results import as_proto
from nhsim.table import growth_caveat
from nhsim.units import axis_label, observable_unit, time_unit


# Axis names of the default observables (mathtext).
_NAMES = {
    "energy_error": r"$H(t) - H(0)$",
    "relative_energy_error": r"$|H(t) - H(0)|\,/\,|H(0)|$",
    "constraint_residual": r"constraint residual $\max_\alpha |\mu^\alpha(q) M^{-1} p|$",
    "position_constraint_residual": r"position residual $\max_k |g_k(q)|$",
    "velocity_constraint_residual": r"velocity residual $\max_k |(G(q) M^{-1} p)_k|$",
}


def plot_energy_variance(result, ax=None, observable="energy_error", fit=True, loglog=True,
                         band=False):
    """The variance of H(t) - H(0) over the ensemble against t, one line per choice, on log
    scales ([Celledoni2019] Fig. 2, bottom right: a random walk whose variance grows linearly in t,
    a line of slope 1 on log-log axes, for the methods that do not preserve energy; round-off
    for those that do).

    Args:
        result: nhsim.Result, EnsembleResult or a result file's path.
        ax: the Axes to draw into; None = a new figure.
        observable: the series whose variance is drawn (default energy_error).
        fit: also draw the growth model a + b t (variance_growth, dashed, over the sample times
            of its fit) and give b / h⁴ with its standard error in the legend; where the
            summary table marks b with "?" (nhsim.table.growth_caveat) the legend does too and
            no fit is drawn.
        loglog: log t axis too (t = 0 is left out); False = linear t, log variance.
        band: shade each variance's 95 % confidence interval (variance_lower to
            variance_upper, docs/statistics.md).

    Returns:
        The Axes. x: t (time unit); y: the unbiased variance (energy unit squared).

    Raises:
        ValueError: the result lacks the observable, or no choice has a positive variance
            (fewer than 2 successful trajectories, or every value equal).
    """
    proto = as_proto(result)
    choices = _choices_with(proto, observable)
    if not choices:
        raise _missing(proto, observable)
    if not _any_positive_variance(choices):
        raise ValueError(f"{observable}: no choice has a positive variance to draw on a log "
                         f"axis ({proto.n_trajectories} trajectories; a variance needs 2 or "
                         f"more successful ones that differ)")
    ax = _new_axes(ax)
    drawn = 0
    for label, integrator, series in choices:
        t, (variance, lower, upper) = _arrays(integrator, series,
                                              ["variance", "variance_lower", "variance_upper"])
        if loglog:
            keep = t > 0
            t, variance, lower, upper = t[keep], variance[keep], lower[keep], upper[keep]
        growth = series.variance_growth
        has_fit = fit and series.HasField("variance_growth") and growth.samples >= 2
        flagged = has_fit and growth_caveat(growth, integrator.trajectories_ok) != ""
        h4 = integrator.choice.h ** 4
        note = (f", b/h⁴ = {growth.b / h4:.3g}{'?' if flagged else ''} ± "
                f"{growth.b_stderr / h4:.2g}" if has_fit else "")
        (line,) = ax.plot(t, _positive(variance), label=f"{label}{note}")
        if band:
            ax.fill_between(t, _positive(lower), _positive(upper), color=line.get_color(),
                            alpha=0.2, linewidth=0)
        if has_fit and not flagged:  # "?": the table's note says why b is no drift
            drawn += 1
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
    if proto.partial:
        title += " so far"
    ax.set_title(title + (" (dashed: a + b t)" if drawn else ""), fontsize="medium")
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


def _any_positive_variance(choices):
    return any(np.any(np.asarray(series.variance, dtype=float) > 0) for _, _, series in choices)


def plot_overview(result):
    """A figure of three panels: plot_energy_variance, plot_energy_error and the constraint
    residual (plot_observable), those the result has (the variance where some choice has a
    positive one: not for a single trajectory).

    Returns:
        The matplotlib Figure.
    """
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    proto = as_proto(result)
    panels = []
    if _any_positive_variance(_choices_with(proto, "energy_error")):
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

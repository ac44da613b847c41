"""The conventions of the paper figures (nhsim.plot's modules named by reference key): colours
by integrator id, the checks of the result they draw, and the panel layout.

They read the aggregate statistics of a result: for a single-trajectory run (n_trajectories = 1)
the mean at each sample time is that trajectory's value. Functions that draw a path or a
difference of samples need such a result and raise ValueError otherwise. A figure of one panel
takes ``ax=`` and returns the Axes; a figure of several panels returns the Figure.
"""

import math

import numpy as np

from nhsim.plot._common import _arrays, _series
from nhsim.results import choice_labels


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

"""The ensemble summary of one observable, as DifferentialEquations.jl's ``plot(EnsembleSummary)``:
per integrator choice, the mean over the trajectories at every sample time with a band
(quantiles, ± its standard error, or min-max), as a DataFrame or in one line as a figure.

    nhsim.plot_summary(result, "energy_error")                 # mean, 5-95 % band
    nhsim.plot_summary(result, "H", band="stderr")             # a custom invariant, ± 1 SE

Axes carry units: t in the system's time unit and the observable in its own, as nhsim.units
lists them (SI for the mechanical systems, dimensionless for the model problems), or from a
custom system's invariants (``custom_system.invariants[].unit``), which a Result from
Job.result() carries in ``Result.units``; ``units=`` adds or overrides any of them.
matplotlib is imported only when drawing.
"""

import numpy as np
import pandas as pd

from nhsim.messages import as_proto
from nhsim.results import choice_labels
from nhsim.units import axis_label, observable_unit, time_unit

#: The bands of ensemble_summary: the columns (lower, upper) of to_dataframe() around the mean,
#: and their legend text.
BANDS = {
    "quantiles": ("q05", "q95", "5–95 %"),
    "stderr": ("-mean_stderr", "+mean_stderr", "± 1 SE"),
    "minmax": ("min", "max", "min–max"),
}
#: The columns of ensemble_summary, in order.
SUMMARY_PLOT_COLUMNS = ["choice", "label", "integrator", "h", "t", "count", "mean", "lower",
                        "upper"]


def _units(result, units):
    merged = dict(getattr(result, "units", None) or {})
    merged.update(units or {})
    return merged


def ensemble_summary(result, observable="energy_error", band="quantiles"):
    """The mean of `observable` and a band around it, per integrator choice and sample time.

    Args:
        result: an nhsim.Result, an EnsembleResult or a result file's path.
        observable: a name the result has (Result.observables), e.g. "energy_error",
            "constraint_residual", a custom invariant "H", "q[0]".
        band: "quantiles" (the 5 % and 95 % quantiles over the trajectories), "stderr" (mean
            ± its standard error) or "minmax" (the extremes).
    Returns:
        DataFrame, one row per choice x sample time, columns SUMMARY_PLOT_COLUMNS: choice
        (index in the spec), label (the legend's), integrator, h, t (time unit), count
        (trajectories at t), mean, lower, upper (the observable's unit). Rows where no
        trajectory was sampled (count 0) are left out.
    Raises:
        ValueError: an unknown band, an observable the result does not have, or a sweep's
            result (summarise one of its cases).
    """
    if band not in BANDS:
        raise ValueError(f"band: expected one of {', '.join(BANDS)}, got {band!r}")
    proto = as_proto(result)
    if proto.cases:
        raise ValueError(f"result: a sweep of {len(proto.cases)} cases; summarise one case "
                         f"(Result.cases[k][1]) or compare them with Result.summary()")
    labels = choice_labels(proto)
    frames = []
    for choice, integrator in enumerate(proto.integrators):
        series = next((s for s in integrator.observables if s.observable == observable), None)
        if series is None:
            continue
        n = min(len(integrator.sample_times), len(series.count), len(series.mean))
        mean = np.asarray(series.mean[:n], dtype=float)
        lower, upper, _ = BANDS[band]

        def column(name, mean=mean, series=series, n=n):
            if name[0] in "+-":
                values = np.asarray(getattr(series, name[1:])[:n], dtype=float)
                if len(values) < n:
                    values = np.full(n, np.nan)
                return mean + values if name[0] == "+" else mean - values
            values = np.asarray(getattr(series, name)[:n], dtype=float)
            return values if len(values) == n else np.full(n, np.nan)

        frames.append(pd.DataFrame({
            "choice": choice, "label": labels[choice], "integrator": integrator.choice.integrator,
            "h": integrator.choice.h, "t": np.asarray(integrator.sample_times[:n], dtype=float),
            "count": np.asarray(series.count[:n], dtype=np.int64), "mean": mean,
            "lower": column(lower), "upper": column(upper)}))
    if not frames:
        names = sorted({s.observable for i in proto.integrators for s in i.observables})
        raise ValueError(f"observable {observable!r} is not in the result; it has: "
                         f"{', '.join(names)}")
    frame = pd.concat(frames, ignore_index=True)
    return frame[frame["count"] > 0].reset_index(drop=True)[SUMMARY_PLOT_COLUMNS]


def plot_summary(result, observable="energy_error", band="quantiles", ax=None, units=None,
                 logy=False, title=True):
    """Draws the ensemble summary of one observable: per integrator choice, its mean over the
    trajectories against t as a line, with the band as a shaded area (ensemble_summary()).

    Args:
        result: an nhsim.Result, an EnsembleResult or a result file's path.
        observable: the observable to draw (default "energy_error", H(t) - H(0)).
        band: "quantiles" (5–95 %), "stderr" (± 1 standard error of the mean) or "minmax".
        ax: a matplotlib Axes to draw into (None: a new 7 x 4.5 inch figure).
        units: {name: unit} adding to or overriding the known units: "t" for time, an
            observable's name for its own ("1" means dimensionless). Without a unit the axis
            carries the bare name.
        logy: a log y axis where every value is > 0, else a symlog one (errors that span
            decades on both sides of 0).
        title: True: the system and the band as the title; False: none; a str: that title.
    Returns:
        The matplotlib Axes. x: t [time unit]; y: the observable [its unit].
    Raises:
        ValueError: as ensemble_summary().
    """
    proto = as_proto(result)
    frame = ensemble_summary(proto, observable, band)
    known = _units(result, units)
    t_unit = known.get("t", time_unit(proto.system))
    y_unit = known.get(observable, observable_unit(proto.system, observable))
    if ax is None:
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
        _, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    colors = [f"C{k % 10}" for k in range(len(proto.integrators))]
    for choice, rows in frame.groupby("choice", sort=True):
        color = colors[choice]
        ax.plot(rows["t"], rows["mean"], color=color, lw=1.6, label=rows["label"].iloc[0])
        ax.fill_between(rows["t"], rows["lower"], rows["upper"], color=color, alpha=0.2, lw=0)
    ax.set_xlabel(axis_label("t", t_unit))
    ax.set_ylabel(axis_label(f"mean {observable}", y_unit))
    if logy:
        values = frame[["mean", "lower", "upper"]].to_numpy().ravel()
        values = values[np.isfinite(values)]
        if values.size and (values > 0).all():
            ax.set_yscale("log")
        else:
            tiny = np.abs(values[values != 0])
            ax.set_yscale("symlog", linthresh=float(tiny.min()) if tiny.size else 1e-16)
    ax.grid(True, alpha=0.3)
    ax.legend(title=f"mean, band {BANDS[band][2]}", fontsize="small", title_fontsize="small")
    if title is True:
        ax.set_title(f"{proto.system}: {observable} over {proto.n_trajectories} trajectories")
    elif title:
        ax.set_title(title)
    return ax


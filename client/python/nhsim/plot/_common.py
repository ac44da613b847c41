"""Reading an ensemble result's series for drawing: the helpers of every nhsim.plot function."""

import numpy as np

from nhsim.results import choice_labels


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

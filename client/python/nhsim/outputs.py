"""Per-trajectory outputs and histograms of a result (the spec's ``outputs``) as DataFrames.

Each function takes a Result, an EnsembleResult or the path of a result file, and returns an
empty frame with the same columns when the spec did not ask for that output. ``choice`` is the
index of the integrator choice in the spec; ``trajectory`` the index of the initial condition.
States are canonical coordinates: columns ``q[0]`` ... ``q[nq-1]``, ``p[0]`` ... ``p[nq-1]`` in
the system's units.
"""

import math

import numpy as np
import pandas as pd

from nhsim._stubs import ensemble_pb2
from nhsim.messages import as_proto, over_cases

#: The columns of trajectory_summary_frame, in order.
TRAJECTORY_SUMMARY_COLUMNS = ["choice", "integrator", "h", "trajectory", "status", "final_time",
                              "max_abs_energy_error", "max_constraint_residual", "reason"]
#: The columns of histograms_frame, in order.
HISTOGRAM_COLUMNS = ["choice", "integrator", "h", "observable", "t", "lo", "hi", "count"]

_STATUS = {ensemble_pb2.TRAJECTORY_OK: "ok", ensemble_pb2.TRAJECTORY_FAILED: "failed",
           ensemble_pb2.TRAJECTORY_CANCELLED: "cancelled"}


def _state_columns(nq):
    return [f"q[{i}]" for i in range(nq)] + [f"p[{i}]" for i in range(nq)]


def _choice(index, integrator):
    return {"choice": index, "integrator": integrator.choice.integrator,
            "h": integrator.choice.h}


def _states_frame(records, prefix_rows):
    """One row per TrajectoryState: the prefix columns, trajectory, then q[i], p[i]."""
    rows = []
    nq = 0
    for prefix, record in zip(prefix_rows, records):
        nq = len(record.state.q)
        row = dict(prefix, trajectory=record.trajectory)
        row.update(zip(_state_columns(nq), [*record.state.q, *record.state.p]))
        rows.append(row)
    prefix_names = list(prefix_rows[0]) if prefix_rows else []
    return pd.DataFrame(rows, columns=[*prefix_names, "trajectory", *_state_columns(nq)])


def initial_states_frame(result):
    """The initial states the ensemble computed (outputs.initial_states): one row per
    trajectory, columns trajectory, q[i], p[i]."""
    if as_proto(result).cases:  # a sweep: its cases' frames, long format
        return over_cases(as_proto(result), initial_states_frame)
    records = list(as_proto(result).initial_states)
    return _states_frame(records, [{}] * len(records))


def initial_states_as_spec(result):
    """The initial states as the ``states`` of a spec's initial_conditions (list of
    {"q": [...], "p": [...]}): sent back, they reproduce those trajectories bit for bit."""
    return [{"q": list(s.state.q), "p": list(s.state.p)} for s in as_proto(result).initial_states]


def final_states_frame(result):
    """The states at t_final (outputs.final_states) of the successful trajectories: one row
    per choice x trajectory, columns choice, integrator, h, trajectory, q[i], p[i]."""
    if as_proto(result).cases:  # a sweep: its cases' frames, long format
        return over_cases(as_proto(result), final_states_frame)
    records, prefixes = [], []
    for index, integrator in enumerate(as_proto(result).integrators):
        for record in integrator.final_states:
            records.append(record)
            prefixes.append(_choice(index, integrator))
    frame = _states_frame(records, prefixes)
    if frame.empty:
        return pd.DataFrame(columns=["choice", "integrator", "h", "trajectory"])
    return frame


def sampled_frame(result):
    """The sampled trajectories (outputs.sampled): one row per choice x trajectory x sample
    time it reached, columns choice, integrator, h, trajectory, t, then each observable, then
    q[i], p[i] where the spec asked for the states (outputs.sampled_state)."""
    if as_proto(result).cases:  # a sweep: its cases' frames, long format
        return over_cases(as_proto(result), sampled_frame)
    frames = []
    for index, integrator in enumerate(as_proto(result).integrators):
        names = [s.observable for s in integrator.observables]
        times = np.asarray(integrator.sample_times, dtype=float)
        for record in integrator.sampled:
            n = record.samples
            columns = {"choice": np.full(n, index, dtype=np.int64),
                       "integrator": np.full(n, integrator.choice.integrator, dtype=object),
                       "h": np.full(n, integrator.choice.h),
                       "trajectory": np.full(n, record.trajectory, dtype=np.int64),
                       "t": times[:n]}
            values = np.asarray(record.values, dtype=float).reshape(n, len(names))
            columns.update((name, values[:, j]) for j, name in enumerate(names))
            if len(record.q) > 0:
                nq = len(record.q) // n
                q = np.asarray(record.q, dtype=float).reshape(n, nq)
                p = np.asarray(record.p, dtype=float).reshape(n, nq)
                columns.update((f"q[{i}]", q[:, i]) for i in range(nq))
                columns.update((f"p[{i}]", p[:, i]) for i in range(nq))
            frames.append(pd.DataFrame(columns))
    if not frames:
        return pd.DataFrame(columns=["choice", "integrator", "h", "trajectory", "t"])
    return pd.concat(frames, ignore_index=True)


def trajectory_summary_frame(result):
    """How each trajectory went (outputs.summary): one row per choice x trajectory, columns
    TRAJECTORY_SUMMARY_COLUMNS. status is "ok", "failed" or "cancelled"; final_time is t_final
    or the time of the last good state; the maxima are over the sample times (energy unit and
    the constraint's unit)."""
    if as_proto(result).cases:  # a sweep: its cases' frames, long format
        return over_cases(as_proto(result), trajectory_summary_frame)
    rows = [dict(_choice(index, integrator), trajectory=s.trajectory,
                 status=_STATUS.get(s.status, "unspecified"), final_time=s.final_time,
                 max_abs_energy_error=s.max_abs_energy_error,
                 max_constraint_residual=s.max_constraint_residual, reason=s.reason)
            for index, integrator in enumerate(as_proto(result).integrators)
            for s in integrator.summary]
    return pd.DataFrame(rows, columns=TRAJECTORY_SUMMARY_COLUMNS)


def histograms_frame(result):
    """The histograms (outputs.histograms): one row per choice x histogram x time x bin,
    columns HISTOGRAM_COLUMNS; bin [lo, hi), the last one closed. Values below the first edge
    come as a row with lo = -inf, above the last as hi = +inf, non-finite ones as lo = hi = NaN,
    so that the counts at each time add up to the successful trajectories."""
    if as_proto(result).cases:  # a sweep: its cases' frames, long format
        return over_cases(as_proto(result), histograms_frame)
    rows = []
    for index, integrator in enumerate(as_proto(result).integrators):
        for histogram in integrator.histograms:
            edges = list(histogram.edges)
            for at in histogram.at:
                base = dict(_choice(index, integrator), observable=histogram.observable,
                            t=at.time)
                bins = [(lo, hi, count) for lo, hi, count in zip(edges, edges[1:], at.counts)]
                bins += [(-math.inf, edges[0], at.below), (edges[-1], math.inf, at.above),
                         (math.nan, math.nan, at.non_finite)]
                rows.extend(dict(base, lo=lo, hi=hi, count=count) for lo, hi, count in bins)
    return pd.DataFrame(rows, columns=HISTOGRAM_COLUMNS)

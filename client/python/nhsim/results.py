"""Ensemble results (nhsim.v1.EnsembleResult) as pandas DataFrames, and result files.

Units: times (``t``, ``h``) are in the system's time unit; an observable's statistics are in
that observable's unit (``energy_error`` H(t) - H(0) in the system's energy unit,
``relative_energy_error`` dimensionless; ``variance`` in the unit squared); ``wall_seconds`` in
seconds. ``choice`` is the index of the integrator choice in the spec (the same integrator may
run at several step sizes). A sweep's frames hold every case in long format: the columns
``case`` (its index) and one per swept field (``parameters.n``, ...) come first.
"""

import math
import pathlib
import warnings

import numpy as np
import pandas as pd
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from nhsim import outputs
from nhsim._stubs import ensemble_pb2
from nhsim.messages import as_proto, over_cases, read_result_message  # as_proto: public here too

#: The columns of to_dataframe, in order.
STATS_COLUMNS = ["choice", "integrator", "h", "observable", "t", "count", "mean", "variance",
                 "min", "max", "q05", "q50", "q95", "mean_stderr", "variance_stderr",
                 "q05_lower", "q05_upper", "q50_lower", "q50_upper", "q95_lower", "q95_upper",
                 "variance_lower", "variance_upper"]
#: The columns of summary_frame, in order.
SUMMARY_COLUMNS = ["choice", "integrator", "h", "sample_every", "n_steps", "trajectories_ok",
                   "trajectories_failed", "trajectories_cancelled", "failed_fraction",
                   "failed_as_whole",
                   "steps_completed",
                   "wall_seconds", "steps_per_second", "max_abs_energy_error",
                   "final_energy_error_variance", "growth_a", "growth_a_stderr", "growth_b",
                   "growth_b_stderr", "growth_b_lower", "growth_b_upper", "growth_b_over_h4",
                   "growth_b_over_h4_stderr", "growth_b_over_h4_lower", "growth_b_over_h4_upper",
                   "growth_exponent", "growth_exponent_stderr", "growth_samples",
                   "growth_t_min", "growth_t_max", "growth_batches", "max_constraint_residual"]
#: The columns of variance_ratios_frame, in order.
RATIO_COLUMNS = ["numerator", "denominator", "observable", "ratio", "ratio_stderr", "ratio_lower",
                 "ratio_upper", "batches"]
#: The columns of failures_frame, in order.
FAILURE_COLUMNS = ["choice", "integrator", "h", "trajectory", "time", "reason"]

_FLOAT_FIELDS = ("mean", "variance", "min", "max", "q05", "q50", "q95", "mean_stderr",
                 "variance_stderr", "q05_lower", "q05_upper", "q50_lower", "q50_upper",
                 "q95_lower", "q95_upper", "variance_lower", "variance_upper")
_GROWTH_FIELDS = ("a", "a_stderr", "b", "b_stderr", "exponent", "exponent_stderr", "samples",
                  "t_min", "t_max", "batches", "a_lower", "a_upper", "b_lower", "b_upper",
                  "exponent_lower", "exponent_upper")


class Result:
    """An ensemble result: the nhsim.v1.EnsembleResult message ``proto`` with conversions.

    Made by Job.result() or load_result(path). In a notebook it shows its summary table.
    """

    def __init__(self, proto, units=None):
        self.proto = proto
        #: {observable or "t": unit} known beyond the system's (a custom system's invariants,
        #: from the spec Job.result() was submitted with); nhsim.plot_summary labels axes with it.
        self.units = dict(units or {})

    def __repr__(self):
        shape = (f"{len(self.proto.cases)} sweep cases" if self.proto.cases
                 else f"{len(self.proto.integrators)} choices")
        return (f"nhsim.Result(system={self.system!r}, job_id={self.job_id!r}, "
                f"{self.n_trajectories} trajectories x {shape}"
                f"{', cancelled' if self.cancelled else ''}"
                f"{', partial' if self.partial else ''})")

    def _repr_html_(self):
        return self.summary().to_html(index=False)

    @property
    def system(self):
        """The system id (str)."""
        return self.proto.system

    @property
    def job_id(self):
        """The job id ("" for a result run without a server)."""
        return self.proto.job_id

    @property
    def label(self):
        """The spec's label (str)."""
        return self.proto.label

    @property
    def n_trajectories(self):
        """Initial conditions in the ensemble (int)."""
        return self.proto.n_trajectories

    @property
    def partial(self):
        """True for a running job's statistics so far (Job.result(partial=True)): those of its
        first n_trajectories trajectories."""
        return self.proto.partial

    @property
    def cancelled(self):
        """True for the partial result of a cancelled job."""
        return self.proto.cancelled

    @property
    def parameters(self):
        """All system parameters, defaults filled in: {name: value}."""
        return dict(self.proto.parameters)

    @property
    def cases(self):
        """A sweep's cases in grid order: a list of ({swept field: value}, Result); empty for a
        result without a sweep. The frames below hold every case in long format already."""
        return [({v.field: v.value for v in case.values}, Result(case.result, self.units))
                for case in self.proto.cases]

    @property
    def observables(self):
        """The observable names, in the order of the first choice that has each (list of str)."""
        names = []
        integrators = [i for case in self.proto.cases for i in case.result.integrators]
        for integrator in integrators or self.proto.integrators:
            names.extend(s.observable for s in integrator.observables
                         if s.observable not in names)
        return names

    def to_dataframe(self):
        """See to_dataframe()."""
        return to_dataframe(self)

    def summary(self):
        """See summary_frame(). Warns (ConditionalStatisticsWarning) for each choice whose
        statistics rest on the successful trajectories only (failure_warnings())."""
        for message in failure_warnings(self):
            warnings.warn(message, ConditionalStatisticsWarning, stacklevel=2)
        return summary_frame(self)

    def observables_frame(self):
        """See observables_frame()."""
        return observables_frame(self)

    def failures(self):
        """See failures_frame()."""
        return failures_frame(self)

    def variance_ratios(self):
        """See variance_ratios_frame()."""
        return variance_ratios_frame(self)

    # Per-trajectory outputs (nhsim.outputs), where the spec asked for them.
    def initial_states(self):
        """See nhsim.outputs.initial_states_frame()."""
        return outputs.initial_states_frame(self)

    def final_states(self):
        """See nhsim.outputs.final_states_frame()."""
        return outputs.final_states_frame(self)

    def sampled(self):
        """See nhsim.outputs.sampled_frame()."""
        return outputs.sampled_frame(self)

    def trajectory_summary(self):
        """See nhsim.outputs.trajectory_summary_frame()."""
        return outputs.trajectory_summary_frame(self)

    def histograms(self):
        """See nhsim.outputs.histograms_frame()."""
        return outputs.histograms_frame(self)

    def save(self, path):
        """Writes the result as protobuf JSON, as `nhsim result JOB --json FILE` does."""
        text = json_format.MessageToJson(self.proto, preserving_proto_field_name=True,
                                         including_default_value_fields=True, indent=1)
        pathlib.Path(path).write_text(text + "\n", encoding="utf-8")


def load_result(path):
    """Reads a result file (nhsim.messages.read_result_message) as a Result.

    Raises:
        ValueError: the file is not an nhsim result.
    """
    return Result(read_result_message(path))


def choice_labels(result):
    """A legend label per integrator choice (list of str, in the spec's order): the integrator
    id, with "h=..." where the same integrator runs at several step sizes."""
    integrators = as_proto(result).integrators
    names = [i.choice.integrator for i in integrators]
    return [f"{name} h={i.choice.h:g}" if names.count(name) > 1 else name
            for name, i in zip(names, integrators)]


def _padded(values, n, fill, dtype):
    """values as an array of length n: cut, or padded with fill (a field missing in old files)."""
    out = np.full(n, fill, dtype=dtype)
    m = min(len(values), n)
    out[:m] = np.asarray(values[:m], dtype=dtype)
    return out


def to_dataframe(result):
    """The per-sample statistics: one row per integrator choice x observable x sample time.

    Args:
        result: a Result, an EnsembleResult or the path of a result file.

    Returns:
        DataFrame with the columns STATS_COLUMNS: choice (int, index in the spec),
        integrator (str), h (float, time unit), observable (str), t (float, time unit),
        count (int64: successful trajectories sampled), mean, variance (unbiased; 0 where
        count < 2), min, max, q05, q50, q95 (float, the observable's unit; NaN where count is
        0), mean_stderr and variance_stderr (standard errors; NaN where count < 2, resp. < 4),
        q05_lower ... q95_upper (distribution-free 95 % confidence intervals of the quantiles;
        -inf/+inf where too few values bound one), variance_lower, variance_upper (the
        variance's 95 % confidence interval, unit^2; NaN where variance_stderr is). Rows are
        ordered by choice, observable (the result's order), then t. docs/statistics.md says how
        each is computed.
    """
    proto = as_proto(result)
    if proto.cases:  # a sweep: its cases' frames, long format
        return over_cases(proto, to_dataframe)
    parts = {name: [] for name in STATS_COLUMNS}
    for index, integrator in enumerate(proto.integrators):
        t = np.asarray(integrator.sample_times, dtype=float)
        n = len(t)
        for series in integrator.observables:
            parts["choice"].append(np.full(n, index, dtype=np.int64))
            parts["integrator"].append(np.full(n, integrator.choice.integrator, dtype=object))
            parts["h"].append(np.full(n, integrator.choice.h))
            parts["observable"].append(np.full(n, series.observable, dtype=object))
            parts["t"].append(t)
            parts["count"].append(_padded(series.count, n, 0, np.int64))
            for name in _FLOAT_FIELDS:
                parts[name].append(_padded(getattr(series, name), n, math.nan, float))
    empty = {"choice": np.int64, "count": np.int64, "integrator": object, "observable": object}
    columns = {name: (np.concatenate(arrays) if arrays
                      else np.empty(0, dtype=empty.get(name, float)))
               for name, arrays in parts.items()}
    return pd.DataFrame(columns, columns=STATS_COLUMNS)


def _series(integrator, name):
    for series in integrator.observables:
        if series.observable == name:
            return series
    return None


def _max_over_sampled(series, values):
    """Max of values over the samples with count > 0; NaN when there are none."""
    count = np.asarray(series.count, dtype=np.int64)
    values = np.asarray(values, dtype=float)
    n = min(len(count), len(values))
    sampled = values[:n][count[:n] > 0]
    return float(np.max(sampled)) if len(sampled) else math.nan


class ConditionalStatisticsWarning(UserWarning):
    """Some trajectories failed: the statistics are over the successful ones only."""


def failure_warnings(result):
    """One line per integrator choice with failed trajectories, as the `nhsim` CLI prints it:
    its statistics are conditional on success (list of str; empty when nothing failed)."""
    proto = as_proto(result)
    if proto.cases:  # a sweep: each case's lines, naming the case
        return [", ".join(f"{v.field} = {v.value!r}" for v in case.values) + ": " + line
                for case in proto.cases for line in failure_warnings(case.result)]
    lines = []
    for integrator in proto.integrators:
        run = integrator.trajectories_ok + integrator.trajectories_failed
        if integrator.trajectories_failed and run:
            consequence = ("failure_policy fail_choice: no statistics are served for it"
                           if integrator.failed_as_whole
                           else "none succeeded: no statistics" if not integrator.trajectories_ok
                           else "its statistics are over the successful ones only")
            lines.append(
                f"{integrator.choice.integrator} (h {integrator.choice.h:g}): "
                f"{integrator.trajectories_failed} of {run} trajectories failed "
                f"({100.0 * integrator.trajectories_failed / run:.1f} %); {consequence}")
    return lines


def summary_frame(result):
    """One row per integrator choice: the `nhsim` summary table and the run's counts.

    Returns:
        DataFrame with the columns SUMMARY_COLUMNS: choice, integrator, h, sample_every,
        n_steps (steps per trajectory), trajectories_ok / _failed / _cancelled,
        failed_fraction (failed / (ok + failed): the statistics exclude these),
        failed_as_whole (bool: failure_policy fail_choice withheld the choice's statistics),
        steps_completed (all trajectories), wall_seconds (s), steps_per_second
        (trajectory-steps per wall second); from the energy_error series:
        max_abs_energy_error (max over samples and trajectories of |H(t) - H(0)|),
        final_energy_error_variance (at the last sample time), the growth model Var(H - H0) =
        a + b t: growth_a (energy unit^2), growth_b (energy unit^2 / time unit),
        growth_b_over_h4 (the constant of [Celledoni2019]), growth_exponent (k of Var ~ t^k),
        each with its jackknife standard error (_stderr), b and b / h^4 with their 95 %
        confidence intervals (_lower, _upper), and the fit's growth_samples, growth_t_min,
        growth_t_max, growth_batches; from constraint_residual: max_constraint_residual.
        (The deprecated fit through the origin, variance_slope, stays in the result's proto.) NaN where the series is absent or no
        trajectory succeeded.
    """
    proto = as_proto(result)
    if proto.cases:  # a sweep: its cases' frames, long format
        return over_cases(proto, summary_frame)
    rows = []
    for index, integrator in enumerate(proto.integrators):
        choice = integrator.choice
        row = {
            "choice": index, "integrator": choice.integrator, "h": choice.h,
            "sample_every": choice.sample_every if choice.HasField("sample_every") else 1,
            "n_steps": integrator.n_steps,
            "trajectories_ok": integrator.trajectories_ok,
            "trajectories_failed": integrator.trajectories_failed,
            "trajectories_cancelled": integrator.trajectories_cancelled,
            "failed_fraction": (integrator.trajectories_failed
                                / max(1, integrator.trajectories_ok
                                      + integrator.trajectories_failed)),
            "failed_as_whole": integrator.failed_as_whole,
            "steps_completed": integrator.steps_completed,
            "wall_seconds": integrator.wall_seconds,
            "steps_per_second": integrator.steps_per_second,
            "max_abs_energy_error": math.nan, "final_energy_error_variance": math.nan,
            "growth_b_over_h4": math.nan, "growth_b_over_h4_stderr": math.nan,
            "growth_b_over_h4_lower": math.nan, "growth_b_over_h4_upper": math.nan,
            **{"growth_" + name: math.nan for name in _GROWTH_FIELDS},
            "growth_samples": 0, "growth_batches": 0,
            "max_constraint_residual": math.nan,
        }
        energy = _series(integrator, "energy_error")
        if energy is not None and integrator.trajectories_ok > 0:
            n = min(len(energy.min), len(energy.max))
            row["max_abs_energy_error"] = _max_over_sampled(
                energy, np.maximum(np.abs(energy.min[:n]), np.abs(energy.max[:n])))
            if len(energy.count) and len(energy.variance) and energy.count[-1] > 0:
                row["final_energy_error_variance"] = energy.variance[-1]
            if energy.HasField("variance_growth"):  # absent in results from before it
                growth = energy.variance_growth
                for name in _GROWTH_FIELDS:
                    row["growth_" + name] = getattr(growth, name)
                h4 = choice.h ** 4
                row["growth_b_over_h4"] = growth.b / h4
                row["growth_b_over_h4_stderr"] = growth.b_stderr / h4
                row["growth_b_over_h4_lower"] = growth.b_lower / h4
                row["growth_b_over_h4_upper"] = growth.b_upper / h4
        residual = _series(integrator, "constraint_residual")
        if residual is not None and integrator.trajectories_ok > 0:
            row["max_constraint_residual"] = _max_over_sampled(residual, residual.max)
        rows.append(row)
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _scalar_fields(descriptor):
    """The names of a message's singular, non-message fields that are not deprecated (new fields
    appear by themselves)."""
    return [f.name for f in descriptor.fields
            if f.label != FieldDescriptor.LABEL_REPEATED
            and f.type != FieldDescriptor.TYPE_MESSAGE and not f.GetOptions().deprecated]


def observables_frame(result):
    """One row per integrator choice x observable: the per-series scalars.

    Returns:
        DataFrame with the columns choice, integrator, h, observable, every singular field of
        SeriesStats that is not deprecated, then the series' growth model Var = a + b t as
        growth_a (unit^2), growth_b (unit^2 / time unit), growth_exponent, each with its
        _stderr, and growth_samples, growth_t_min, growth_t_max, growth_batches, then each
        estimate's 95 % confidence interval growth_a_lower, growth_a_upper, ...
        growth_exponent_upper.
    """
    proto = as_proto(result)
    if proto.cases:  # a sweep: its cases' frames, long format
        return over_cases(proto, observables_frame)
    fields = [name for name in _scalar_fields(ensemble_pb2.SeriesStats.DESCRIPTOR)
              if name != "observable"]
    rows = []
    for index, integrator in enumerate(proto.integrators):
        for series in integrator.observables:
            row = {"choice": index, "integrator": integrator.choice.integrator,
                   "h": integrator.choice.h, "observable": series.observable}
            row.update((name, getattr(series, name)) for name in fields)
            row.update(("growth_" + name, getattr(series.variance_growth, name))
                       for name in _GROWTH_FIELDS)
            rows.append(row)
    growth = ["growth_" + name for name in _GROWTH_FIELDS]
    return pd.DataFrame(rows, columns=["choice", "integrator", "h", "observable", *fields, *growth])


def variance_ratios_frame(result):
    """Var_i / Var_j at t_final for every pair of choices i < j and every observable, over the
    same initial states, with its jackknife standard error (the pairing of common random
    numbers used; docs/statistics.md).

    Returns:
        DataFrame with the columns RATIO_COLUMNS: numerator and denominator (the choices'
        labels, choice_labels()), observable, ratio, ratio_stderr, ratio_lower, ratio_upper
        (float, 1; the last two its 95 % confidence interval; NaN where a variance is 0),
        batches (int: non-empty batches behind the standard error).
    """
    proto = as_proto(result)
    if proto.cases:  # a sweep: its cases' frames, long format
        return over_cases(proto, variance_ratios_frame)
    labels = choice_labels(proto)
    rows = [{"numerator": labels[r.numerator], "denominator": labels[r.denominator],
             "observable": r.observable, "ratio": r.ratio, "ratio_stderr": r.ratio_stderr,
             "ratio_lower": r.ratio_lower, "ratio_upper": r.ratio_upper,
             "batches": r.batches} for r in proto.variance_ratios]
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


def failures_frame(result):
    """The listed failed trajectories, one row each: choice, integrator, h, trajectory (index of
    the initial condition), time (of the last good state, time unit), reason (str). A choice
    lists its first 100 failures by index (trajectories_failed counts them all; the spec's
    outputs.summary gives every trajectory's status and reason)."""
    proto = as_proto(result)
    if proto.cases:  # a sweep: its cases' frames, long format
        return over_cases(proto, failures_frame)
    rows = [{"choice": index, "integrator": integrator.choice.integrator,
             "h": integrator.choice.h, "trajectory": failure.trajectory,
             "time": failure.time, "reason": failure.reason}
            for index, integrator in enumerate(proto.integrators)
            for failure in integrator.failures]
    frame = pd.DataFrame(rows, columns=FAILURE_COLUMNS)
    return frame.astype({"choice": np.int64, "trajectory": np.int64, "h": float,
                         "time": float})

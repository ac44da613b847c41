"""The summary table of a result as the C++ CLI prints it (`nhsim result JOB`, `nhsim submit
--wait`): the same headers, numbers and notes, so that `python3 -m nhsim submit --wait` and the
CLI speak one vocabulary. HEADERS maps each header to its column of Result.summary().
"""

import math

from nhsim.messages import as_proto

#: The CLI table's header -> the column of summary_frame() that holds the same number.
HEADERS = {
    "integrator": "integrator",
    "h": "h",
    "ok": "trajectories_ok",
    "failed": "trajectories_failed",
    "steps/s": "steps_per_second",
    "max|H-H0|": "max_abs_energy_error",      # max|H/H0-1| where only relative_energy_error is
    "final var": "final_energy_error_variance",
    "b/h^4": "growth_b_over_h4",              # "?": its relative standard error is over 25 %
    "+- SE": "growth_b_over_h4_stderr",
    "max resid": "max_constraint_residual",   # max pos resid, max vel resid for those observables
}

_MAX_GROWTH_RELATIVE_ERROR = 0.25  # client/include/nhsim/client/report.hpp
_MAX_LINEAR_GROWTH_EXPONENT = 1.0  # likewise: a + b t (a, b >= 0) grows at most like t^1


def _g(value):
    """C's %g."""
    return "%g" % value  # pylint: disable=consider-using-f-string


def _shortest(value):
    """The shortest decimal that reads back as value, as the C++ CLI writes a swept value."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _e(value, digits=3):
    return "-" if value is None else f"{value:.{digits}e}"


def _max_over_samples(series, values):
    best = None
    for i, count in enumerate(series.count):
        if count <= 0:
            continue
        value = values(i)
        if best is None or value > best or math.isnan(value):
            best = value
        if math.isnan(best):
            break
    return best


def _find(integrator, name):
    return next((s for s in integrator.observables if s.observable == name), None)


def _energy_observable(proto):
    found = ""
    for integrator in proto.integrators:
        if _find(integrator, "energy_error") is not None:
            return "energy_error"
        if _find(integrator, "relative_energy_error") is not None:
            found = "relative_energy_error"
    return found


def _is_residual(name):
    return name == "constraint_residual" or (
        len(name) > len("_constraint_residual") and name.endswith("_constraint_residual"))


def _residual_header(name):
    return {"constraint_residual": "max resid", "position_constraint_residual": "max pos resid",
            "velocity_constraint_residual": "max vel resid"}.get(name, "max " + name)


def growth_caveat(growth, trajectories_ok):
    """Why the variance growth fit `growth` (a VarianceGrowth) gives no drift b, as the
    CLI's "?" notes say it; "" where b is determined (and for fewer than two successful
    trajectories, where the table's "-" says it). The plots draw no fit where this is set."""
    if growth.samples < 2 or growth.batches < 2:
        if trajectories_ok < 2:
            return ""
        return f"no fit: {growth.samples} sample times, {growth.batches} non-empty batches"
    if not math.isfinite(growth.b_stderr):
        return (f"no standard error: leaving out one of the {growth.batches} batches leaves fewer "
                f"than two trajectories; more trajectories")
    if growth.exponent_lower > _MAX_LINEAR_GROWTH_EXPONENT:
        return (f"the variance grows faster than a + b t allows (exponent {growth.exponent:.2f} "
                f"+- {growth.exponent_stderr:.2f}, 95 % interval {growth.exponent_lower:.2f}-"
                f"{growth.exponent_upper:.2f}): b is a secant's slope over the span, not a drift")
    relative = abs(growth.b_stderr / growth.b) if growth.b else math.inf
    if relative <= _MAX_GROWTH_RELATIVE_ERROR:
        return ""
    return (f"relative standard error {100 * relative:.0f} %: more trajectories, or a variance "
            f"that does not grow (exponent {growth.exponent:.2f} +- "
            f"{growth.exponent_stderr:.2f})")


def _finite(value):
    return value if math.isfinite(value) else None


def _residuals(proto):
    names = []
    for integrator in proto.integrators:
        for series in integrator.observables:
            if _is_residual(series.observable) and series.observable not in names:
                names.append(series.observable)
    return names


def _header(energy, residuals):
    header = ["integrator", "h", "ok", "failed", "steps/s"]
    if energy:
        header += ["max|H-H0|" if energy == "energy_error" else "max|H/H0-1|", "final var",
                   "b/h^4", "+- SE"]
    return header + [_residual_header(name) for name in residuals]


def _rows(proto, energy, residuals):
    """The table's line of cells per integrator choice, and the notes under it: the growth
    fit's range (first), "?" caveats and failures."""
    cells, caveats = [], []
    for integrator in proto.integrators:
        h = integrator.choice.h
        line = [integrator.choice.integrator, _g(h), str(integrator.trajectories_ok),
                str(integrator.trajectories_failed), f"{integrator.steps_per_second:.3e}"]
        has_stats = integrator.trajectories_ok > 0
        if energy:
            max_abs = final_var = b_h4 = b_h4_se = None
            caveat = ""
            series = _find(integrator, energy) if has_stats else None
            if series is not None:
                if len(series.min) == len(series.count) == len(series.max):
                    max_abs = _max_over_samples(
                        series, lambda i, s=series: max(abs(s.min[i]), abs(s.max[i])))
                last = len(series.variance) - 1
                if 0 <= last < len(series.count) and series.count[last] > 1:
                    final_var = series.variance[last]
                if series.HasField("variance_growth"):
                    growth = series.variance_growth
                    stop = False
                    if growth.samples >= 2 and growth.batches >= 2:
                        b_h4 = _finite(growth.b / h ** 4)
                        b_h4_se = _finite(growth.b_stderr / h ** 4)
                        stop = b_h4 is None
                    if not stop:
                        caveat = growth_caveat(growth, integrator.trajectories_ok)
            if caveat:
                caveats.append(f"? b/h^4 of {integrator.choice.integrator} (h {_g(h)}): "
                               f"{caveat}")
            line += [_e(max_abs), _e(final_var),
                     _e(b_h4) + ("?" if b_h4 is not None and caveat else ""),
                     _e(b_h4_se, 2)]
        for name in residuals:
            series = _find(integrator, name) if has_stats else None
            value = None
            if series is not None and len(series.max) == len(series.count):
                value = _max_over_samples(series, lambda i, s=series: s.max[i])
            line.append(_e(value))
        cells.append(line)
    fit = []
    for integrator in proto.integrators:
        series = _find(integrator, energy) if energy else None
        if series is None or series.variance_growth.samples < 2 or \
                series.variance_growth.batches < 2:
            continue
        growth = series.variance_growth
        fit.append(f"b/h^4: drift of Var({'H - H0' if energy == 'energy_error' else 'H / H0 - 1'})"
                   f" = a + b t over {growth.samples} sample times in t [{_g(growth.t_min)}, "
                   f"{_g(growth.t_max)}], +- its standard error from {growth.batches} batches of "
                   f"trajectories")
        break
    failures = []
    for integrator in proto.integrators:
        failed, run = integrator.trajectories_failed, (integrator.trajectories_ok
                                                       + integrator.trajectories_failed)
        if failed == 0 or run == 0:
            continue
        whole = integrator.failed_as_whole
        failures.append(
            f"{'failed: ' if whole else 'warning: '}{integrator.choice.integrator} "
            f"(h {_g(integrator.choice.h)}): {failed} of {run} trajectories failed "
            f"({100.0 * failed / run:.1f}"
            + (" %); failure_policy fail_choice: no statistics are served for it" if whole
               else " %); none succeeded: no statistics" if integrator.trajectories_ok == 0
               else " %); its statistics are over the successful ones only"))
        failures.extend(_failure_reasons(integrator))
    return cells, fit, caveats + failures


def _failure_reasons(integrator, shown=3):
    """Why a choice's trajectories failed, as `nhsim`'s table says it (client/report.cpp): a line
    per kind of reason (its text before " ("), most frequent first, with its count and its first
    failure; at most `shown` kinds, then one line for the rest. Where only the first failures
    are listed (100, the core's kMaxListedFailures), a line first says the counts are over those."""
    kinds = {}  # kind -> [count, first failure], in order of first appearance
    for f in integrator.failures:
        kind = f.reason.split(" (", 1)[0]
        kinds.setdefault(kind, [0, f])[0] += 1
    ordered = sorted(kinds.items(), key=lambda k: -k[1][0])  # stable: ties keep their order
    lines = []
    if len(integrator.failures) < integrator.trajectories_failed:
        lines.append(f"  reasons of the first {len(integrator.failures)} failed trajectories:")
    lines += [f"  {count} x {kind}; first: trajectory {first.trajectory} at t = {_g(first.time)}"
              f"{first.reason[len(kind):]}" for kind, (count, first) in ordered[:shown]]
    rest = sum(count for _, (count, _) in ordered[shown:])
    if rest:
        others = len(ordered) - shown
        lines.append(f"  {rest} more for {others} other reason{'' if others == 1 else 's'}")
    return lines


def _aligned(cells, left):
    widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
    return "".join("  ".join(cell.ljust(widths[c]) if c in left else cell.rjust(widths[c])
                             for c, cell in enumerate(row)).rstrip() + "\n" for row in cells)


def summary_table(result):
    """The CLI's summary table of a result, as text (lines ending in "\\n").

    Args:
        result: an nhsim.Result, an EnsembleResult or a result file's path.
    Returns:
        str: a header line (HEADERS' keys; only the energy and residual columns the result
        has), one line per integrator choice, then the CLI's notes (the growth fit's range,
        "?" caveats, failures, until, cancelled). A sweep's is one table with a column per
        swept field, each case's values on its first row, and notes that name their case.
    """
    proto = as_proto(result)
    if proto.cases:
        energies = [_energy_observable(case.result) for case in proto.cases]
        energy = "energy_error" if "energy_error" in energies else next(
            (e for e in energies if e), "")
        residuals = []
        for case in proto.cases:
            residuals += [r for r in _residuals(case.result) if r not in residuals]
        fields = [v.field for v in proto.cases[0].values]
        cells, fit, notes = [fields + _header(energy, residuals)], [], []
        for case in proto.cases:
            rows, case_fit, case_notes = _rows(case.result, energy, residuals)
            values = [_shortest(v.value) for v in case.values]
            for k, row in enumerate(rows):
                cells.append((values if k == 0 else [""] * len(values)) + row)
            fit = fit or case_fit
            text = ", ".join(f"{v.field} = {_shortest(v.value)}" for v in case.values)
            notes += [f"{text}: {note}" for note in case_notes]
        text = _aligned(cells, {len(fields)})
    else:
        energy = _energy_observable(proto)
        residuals = _residuals(proto)
        rows, fit, notes = _rows(proto, energy, residuals)
        text = _aligned([_header(energy, residuals)] + rows, {0})
    text += "".join(line + "\n" for line in fit + notes)
    if proto.HasField("until"):
        until = proto.until
        text += (f"until: {'every precision target held' if until.reached else 'stopped at the cap'}"
                 f" after {until.trajectories_used} of {until.trajectories_cap} trajectories"
                 f" ({until.trajectories_planned} planned from the pilot);"
                 f" relative standard errors:"
                 + "".join(f" {r:.3g}" for r in until.relative_stderr) + "\n")
    if proto.cancelled:
        integrators = [i for case in proto.cases for i in case.result.integrators]
        not_run = sum(i.trajectories_cancelled for i in integrators or proto.integrators)
        text += f"cancelled: {not_run} trajectory runs were not run\n"
    return text

#include "nhsim/client/report.hpp"

#include <google/protobuf/timestamp.pb.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "nhsim/client/progress.hpp"

namespace nhsim::client {
namespace {

const v1::SeriesStats* find_observable(const v1::IntegratorResult& result,
                                       const std::string& name) {
  for (const auto& series : result.observables()) {
    if (series.observable() == name) return &series;
  }
  return nullptr;
}

/// Max over samples with count > 0 of f(i); nullopt when there are none.
template <typename F>
std::optional<double> max_over_samples(const v1::SeriesStats& series, F f) {
  std::optional<double> best;
  for (int i = 0; i < series.count_size(); ++i) {
    if (series.count(i) <= 0) continue;
    const double value = f(i);
    if (!best || value > *best || std::isnan(value)) best = value;
    if (std::isnan(*best)) break;
  }
  return best;
}

std::string format_double(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

/// The shortest decimal that reads back as `value` ("nan", "inf", "-inf" where not finite).
std::string shortest(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

std::string format_optional(std::optional<double> value) {
  return value ? format_double("%.3e", *value) : std::string("-");
}

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

}  // namespace

namespace {

/// Why the energy error's growth drift b is not determined by the samples; empty when it is, and
/// for fewer than two successful trajectories (no fit is possible: the table's "-" says it).
std::string growth_caveat(const v1::VarianceGrowth& g, std::int64_t trajectories_ok) {
  char text[200];
  if (g.samples() < 2 || g.batches() < 2) {
    if (trajectories_ok < 2) return {};
    std::snprintf(text, sizeof text, "no fit: %lld sample times, %lld non-empty batches",
                  static_cast<long long>(g.samples()), static_cast<long long>(g.batches()));
    return text;
  }
  if (!std::isfinite(g.b_stderr())) {
    std::snprintf(text, sizeof text,
                  "no standard error: leaving out one of the %lld batches leaves fewer than two "
                  "trajectories; more trajectories",
                  static_cast<long long>(g.batches()));
    return text;
  }
  if (g.exponent_lower() > kMaxLinearGrowthExponent) {
    std::snprintf(text, sizeof text,
                  "the variance grows faster than a + b t allows (exponent %.2f +- %.2f, 95 %% "
                  "interval %.2f-%.2f): b is a secant's slope over the span, not a drift",
                  g.exponent(), g.exponent_stderr(), g.exponent_lower(), g.exponent_upper());
    return text;
  }
  const double relative = std::abs(g.b_stderr() / g.b());
  if (relative <= kMaxGrowthRelativeError) return {};
  std::snprintf(text, sizeof text,
                "relative standard error %.0f %%: more trajectories, or a variance that does "
                "not grow (exponent %.2f +- %.2f)",
                100.0 * relative, g.exponent(), g.exponent_stderr());
  return text;
}

std::optional<double> finite_or_none(double x) {
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

bool is_residual(const std::string& name) {
  static const std::string suffix = "_constraint_residual";
  return name == "constraint_residual" || (name.size() > suffix.size() && name.ends_with(suffix));
}

/// The energy columns of `row` from the series `e`.
void summarize_energy(const v1::SeriesStats& e, SummaryRow& row) {
  if (e.min_size() == e.count_size() && e.max_size() == e.count_size()) {
    row.max_abs_energy_error = max_over_samples(
        e, [&](int i) { return std::max(std::abs(e.min(i)), std::abs(e.max(i))); });
  }
  const int last = e.variance_size() - 1;
  if (last >= 0 && last < e.count_size() && e.count(last) > 1) {
    row.final_energy_error_variance = e.variance(last);
  }
  if (!e.has_variance_growth()) return;  // absent from results written before it existed
  const v1::VarianceGrowth& g = e.variance_growth();
  if (g.samples() >= 2 && g.batches() >= 2) {
    const double h4 = row.h * row.h * row.h * row.h;
    row.growth_b_over_h4 = finite_or_none(g.b() / h4);
    row.growth_b_over_h4_stderr = finite_or_none(g.b_stderr() / h4);
    if (!row.growth_b_over_h4) return;
  }
  row.growth_caveat = growth_caveat(g, row.trajectories_ok);
}

/// The column header of a residual observable: "max resid", "max pos resid", ...
std::string residual_header(const std::string& name) {
  if (name == "constraint_residual") return "max resid";
  if (name == "position_constraint_residual") return "max pos resid";
  if (name == "velocity_constraint_residual") return "max vel resid";
  return "max " + name;
}

/// `cells` as aligned text, each column as wide as its widest cell, two blanks apart: left-aligned
/// where `left` says so (by default the first column only), else right-aligned.
std::string aligned(const std::vector<std::vector<std::string>>& cells,
                    const std::vector<bool>& left = {true}) {
  std::vector<std::size_t> width;
  for (const auto& line : cells) {
    width.resize(std::max(width.size(), line.size()), 0);
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  std::string out;
  for (const auto& line : cells) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      const bool to_left = c < left.size() && left[c];
      out += (c == 0 ? "" : "  ") +
             (to_left ? pad_right(line[c], width[c]) : pad_left(line[c], width[c]));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

}  // namespace

std::string energy_observable(const v1::EnsembleResult& result) {
  std::string found;
  for (const auto& integrator : result.integrators()) {
    if (find_observable(integrator, "energy_error") != nullptr) return "energy_error";
    if (find_observable(integrator, "relative_energy_error") != nullptr) {
      found = "relative_energy_error";
    }
  }
  return found;
}

std::vector<std::string> residual_observables(const v1::EnsembleResult& result) {
  std::vector<std::string> names;
  for (const auto& integrator : result.integrators()) {
    for (const auto& series : integrator.observables()) {
      if (is_residual(series.observable()) &&
          std::find(names.begin(), names.end(), series.observable()) == names.end()) {
        names.push_back(series.observable());
      }
    }
  }
  return names;
}

std::vector<SummaryRow> summarize(const v1::EnsembleResult& result) {
  const std::string energy = energy_observable(result);
  const std::vector<std::string> residuals = residual_observables(result);
  std::vector<SummaryRow> rows;
  for (const auto& integrator : result.integrators()) {
    SummaryRow row;
    row.integrator = integrator.choice().integrator();
    row.h = integrator.choice().h();
    row.trajectories_ok = integrator.trajectories_ok();
    row.trajectories_failed = integrator.trajectories_failed();
    row.trajectories_cancelled = integrator.trajectories_cancelled();
    row.steps_per_second = integrator.steps_per_second();
    for (const auto& name : residuals) row.max_residuals.push_back({name, std::nullopt});
    if (integrator.trajectories_ok() == 0) {  // no statistics (all failed or cancelled)
      rows.push_back(std::move(row));
      continue;
    }
    if (const auto* e = find_observable(integrator, energy)) summarize_energy(*e, row);
    for (auto& residual : row.max_residuals) {
      const auto* r = find_observable(integrator, residual.observable);
      if (r != nullptr && r->max_size() == r->count_size()) {
        residual.max = max_over_samples(*r, [&](int i) { return r->max(i); });
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

/// The table's header and one line of cells per row.
std::vector<std::vector<std::string>> table_cells(const std::vector<SummaryRow>& rows,
                                                  const std::string& energy,
                                                  const std::vector<std::string>& residuals) {
  std::vector<std::string> header = {"integrator", "h", "ok", "failed", "steps/s"};
  if (!energy.empty()) {
    header.insert(header.end(), {energy == "energy_error" ? "max|H-H0|" : "max|H/H0-1|",
                                 "final var", "b/h^4", "+- SE"});
  }
  for (const auto& name : residuals) header.push_back(residual_header(name));
  std::vector<std::vector<std::string>> cells = {header};
  for (const auto& row : rows) {
    std::vector<std::string> line = {
        row.integrator, format_double("%g", row.h), std::to_string(row.trajectories_ok),
        std::to_string(row.trajectories_failed), format_double("%.3e", row.steps_per_second)};
    if (!energy.empty()) {
      const bool marked = row.growth_b_over_h4 && !row.growth_caveat.empty();
      line.insert(line.end(),
                  {format_optional(row.max_abs_energy_error),
                   format_optional(row.final_energy_error_variance),
                   format_optional(row.growth_b_over_h4) + (marked ? "?" : ""),
                   row.growth_b_over_h4_stderr ? format_double("%.2e", *row.growth_b_over_h4_stderr)
                                               : "-"});
    }
    for (const auto& residual : row.max_residuals) line.push_back(format_optional(residual.max));
    cells.push_back(std::move(line));
  }
  return cells;
}

/// The growth model's fit range and batches, from the first row that has a fit; empty if none.
std::string fit_note(const v1::EnsembleResult& result, const std::string& energy) {
  for (const auto& integrator : result.integrators()) {
    const auto* e = find_observable(integrator, energy);
    if (e == nullptr) continue;
    const v1::VarianceGrowth& g = e->variance_growth();
    if (g.samples() < 2 || g.batches() < 2) continue;
    std::ostringstream out;
    out << "b/h^4: drift of Var(" << (energy == "energy_error" ? "H - H0" : "H / H0 - 1")
        << ") = a + b t over " << g.samples() << " sample times in t ["
        << format_double("%g", g.t_min()) << ", " << format_double("%g", g.t_max())
        << "], +- its standard error from " << g.batches() << " batches of trajectories\n";
    return out.str();
  }
  return {};
}

/// Why a choice's trajectories failed: a line per kind of reason (its text before " (", the
/// detail), most frequent first, each with its count and its first failure (where, and its
/// detail); at most kShownReasons kinds, then one line for the rest. Where only the first
/// failures are listed (kMaxListedFailures), a line first says the counts are over those.
std::string failure_reasons(const v1::IntegratorResult& integrator) {
  constexpr std::size_t kShownReasons = 3;
  struct Kind {
    std::int64_t count = 0;
    const v1::TrajectoryFailure* first = nullptr;
  };
  std::vector<std::pair<std::string, Kind>> kinds;  // in order of first appearance
  for (const v1::TrajectoryFailure& f : integrator.failures()) {
    const std::string kind = f.reason().substr(0, f.reason().find(" ("));
    auto it =
        std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, Kind{0, &f}});
    ++it->second.count;
  }
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::ostringstream out;
  if (integrator.failures_size() < integrator.trajectories_failed()) {
    out << "  reasons of the first " << integrator.failures_size() << " failed trajectories:\n";
  }
  std::int64_t rest = 0;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const Kind& kind = kinds[k].second;
    if (k >= kShownReasons) {
      rest += kind.count;
      continue;
    }
    const std::string& reason = kind.first->reason();
    out << "  " << kind.count << " x " << kinds[k].first << "; first: trajectory "
        << kind.first->trajectory() << " at t = " << format_double("%g", kind.first->time())
        << reason.substr(kinds[k].first.size()) << "\n";
  }
  if (rest > 0) {
    const std::size_t others = kinds.size() - kShownReasons;
    out << "  " << rest << " more for " << others << " other reason" << (others == 1 ? "" : "s")
        << "\n";
  }
  return out.str();
}

/// A warning per row with failed trajectories ("failed:" where the choice failed as a whole),
/// and why they failed.
std::string failure_notes(const v1::EnsembleResult& result, const std::vector<SummaryRow>& rows) {
  std::ostringstream out;
  for (int c = 0; c < result.integrators_size(); ++c) {
    const SummaryRow& row = rows[static_cast<std::size_t>(c)];
    const std::int64_t run = row.trajectories_ok + row.trajectories_failed;
    if (row.trajectories_failed == 0 || run == 0) continue;
    const v1::IntegratorResult& integrator = result.integrators(c);
    out << (integrator.failed_as_whole() ? "failed: " : "warning: ") << row.integrator << " (h "
        << format_double("%g", row.h) << "): " << row.trajectories_failed << " of " << run
        << " trajectories failed ("
        << format_double("%.1f", 100.0 * static_cast<double>(row.trajectories_failed) /
                                     static_cast<double>(run))
        << (integrator.failed_as_whole() ? " %); failure_policy fail_choice: no statistics are "
                                           "served for it\n"
            : row.trajectories_ok == 0   ? " %); none succeeded: no statistics\n"
                                       : " %); its statistics are over the successful ones only\n")
        << failure_reasons(integrator);
  }
  return out.str();
}

/// A note when the rows rest on different numbers of trajectories run (a cancelled job's partial
/// result); empty otherwise.
std::string uneven_counts_note(const std::vector<SummaryRow>& rows, std::int64_t n) {
  std::int64_t fewest = std::numeric_limits<std::int64_t>::max(), most = 0;
  for (const auto& row : rows) {
    fewest = std::min(fewest, row.trajectories_ok + row.trajectories_failed);
    most = std::max(most, row.trajectories_ok + row.trajectories_failed);
  }
  if (rows.empty() || fewest == most) return {};
  return "partial: the rows rest on different numbers of trajectories (" + std::to_string(fewest) +
         " to " + std::to_string(most) + " of " + std::to_string(n) +
         "), so they do not compare over the same initial conditions\n";
}

}  // namespace

namespace {

/// "parameters.n = 3, h = 0.05": a sweep case's values.
std::string case_text(const v1::SweepCase& sweep_case) {
  std::string text;
  for (const auto& v : sweep_case.values()) {
    text += (text.empty() ? "" : ", ") + v.field() + " = " + shortest(v.value());
  }
  return text;
}

/// The notes under a table of `result`'s rows, each prefixed with `prefix` (a sweep's case).
std::string row_notes(const v1::EnsembleResult& result, const std::vector<SummaryRow>& rows,
                      const std::string& prefix) {
  std::ostringstream out;
  for (const auto& row : rows) {
    if (!row.growth_caveat.empty()) {
      out << prefix << "? b/h^4 of " << row.integrator << " (h " << format_double("%g", row.h)
          << "): " << row.growth_caveat << '\n';
    }
  }
  for (const std::string& notes :
       {failure_notes(result, rows), uneven_counts_note(rows, result.n_trajectories())}) {
    std::istringstream lines(notes);
    for (std::string line; std::getline(lines, line);) out << prefix << line << '\n';
  }
  return out.str();
}

/// The summary of a sweep: one table, the case's values in the first columns of its first row
/// (the case's rows grouped under it), then the notes, each naming its case.
std::string sweep_summary_table(const v1::EnsembleResult& result) {
  std::string energy;
  std::vector<std::string> residuals;
  for (const auto& sweep_case : result.cases()) {
    if (energy != "energy_error") {
      const std::string e = energy_observable(sweep_case.result());
      if (!e.empty()) energy = e;
    }
    for (const auto& name : residual_observables(sweep_case.result())) {
      if (std::find(residuals.begin(), residuals.end(), name) == residuals.end()) {
        residuals.push_back(name);
      }
    }
  }
  std::vector<std::vector<std::string>> cells;
  std::vector<bool> left;
  std::string notes, fit;
  for (const auto& sweep_case : result.cases()) {
    const std::vector<SummaryRow> rows = summarize(sweep_case.result());
    const auto lines = table_cells(rows, energy, residuals);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (k == 0 && !cells.empty()) continue;  // the header once
      std::vector<std::string> line;
      for (const auto& v : sweep_case.values()) {
        line.push_back(k == 0 ? v.field() : k == 1 ? shortest(v.value()) : std::string());
      }
      line.insert(line.end(), lines[k].begin(), lines[k].end());
      cells.push_back(std::move(line));
    }
    if (left.empty()) {
      left.assign(static_cast<std::size_t>(sweep_case.values_size()), false);
      left.push_back(true);  // the integrator
    }
    if (fit.empty()) fit = fit_note(sweep_case.result(), energy);
    notes += row_notes(sweep_case.result(), rows, case_text(sweep_case) + ": ");
  }
  return aligned(cells, left) + fit + notes;
}

}  // namespace

std::string summary_table(const v1::EnsembleResult& result) {
  std::ostringstream out;
  if (result.cases_size() > 0) {
    out << sweep_summary_table(result);
  } else {
    const std::string energy = energy_observable(result);
    const std::vector<SummaryRow> rows = summarize(result);
    out << aligned(table_cells(rows, energy, residual_observables(result)));
    out << fit_note(result, energy) << row_notes(result, rows, "");
  }
  if (result.has_until()) {
    const v1::UntilOutcome& u = result.until();
    out << "until: " << (u.reached() ? "every precision target held" : "stopped at the cap")
        << " after " << u.trajectories_used() << " of " << u.trajectories_cap() << " trajectories ("
        << u.trajectories_planned() << " planned from the pilot); relative standard errors:";
    for (double r : u.relative_stderr()) out << ' ' << format_double("%.3g", r);
    out << '\n';
  }
  if (result.cancelled()) {
    std::int64_t not_run = 0;
    for (const auto& integrator : result.integrators()) {
      not_run += integrator.trajectories_cancelled();
    }
    for (const auto& sweep_case : result.cases()) {
      for (const auto& integrator : sweep_case.result().integrators()) {
        not_run += integrator.trajectories_cancelled();
      }
    }
    out << "cancelled: " << not_run << " trajectory runs were not run\n";
  }
  if (result.partial()) {
    out << "so far: the statistics of the first " << result.n_trajectories()
        << " trajectories of a running job\n";
  }
  return out.str();
}

std::string to_csv(const v1::EnsembleResult& result) {
  std::ostringstream out;
  if (result.cases_size() > 0) {
    // Long format: the case and its values before each row; a swept h is the row's own h.
    out << "case";
    for (const auto& v : result.cases(0).values()) {
      if (v.field() != "h") out << ',' << v.field();
    }
    for (int k = 0; k < result.cases_size(); ++k) {
      std::string prefix = std::to_string(k);
      for (const auto& v : result.cases(k).values()) {
        if (v.field() != "h") prefix += ',' + shortest(v.value());
      }
      std::istringstream lines(to_csv(result.cases(k).result()));
      std::string line;
      std::getline(lines, line);
      if (k == 0) out << ',' << line << '\n';
      while (std::getline(lines, line)) out << prefix << ',' << line << '\n';
    }
    return out.str();
  }
  out << "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,"
         "mean_stderr,variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,"
         "q95_upper,variance_lower,variance_upper\n";
  // One optional column: the shortest round-trip decimal, or empty where the series has none.
  auto optional_column = [](const google::protobuf::RepeatedField<double>& q, int i) {
    return i < q.size() ? shortest(q.Get(i)) : std::string();
  };
  for (int c = 0; c < result.integrators_size(); ++c) {
    const auto& integrator = result.integrators(c);
    for (const auto& series : integrator.observables()) {
      const int n =
          std::min({integrator.sample_times_size(), series.count_size(), series.mean_size(),
                    series.variance_size(), series.min_size(), series.max_size()});
      for (int i = 0; i < n; ++i) {
        out << c << ',' << integrator.choice().integrator() << ','
            << shortest(integrator.choice().h()) << ',' << series.observable() << ','
            << shortest(integrator.sample_times(i)) << ',' << series.count(i) << ','
            << shortest(series.mean(i)) << ',' << shortest(series.variance(i)) << ','
            << shortest(series.min(i)) << ',' << shortest(series.max(i));
        for (const auto* column :
             {&series.q05(), &series.q50(), &series.q95(), &series.mean_stderr(),
              &series.variance_stderr(), &series.q05_lower(), &series.q05_upper(),
              &series.q50_lower(), &series.q50_upper(), &series.q95_lower(), &series.q95_upper(),
              &series.variance_lower(), &series.variance_upper()})
          out << ',' << optional_column(*column, i);
        out << '\n';
      }
    }
  }
  return out.str();
}

std::vector<ConvergenceRow> convergence(const v1::EnsembleResult& result,
                                        const std::string& reference) {
  if (result.cases_size() > 0) {  // a sweep: its cases' choices in order, as one result's
    v1::EnsembleResult choices;
    choices.set_n_trajectories(result.n_trajectories());
    for (const auto& sweep_case : result.cases()) {
      for (const auto& integrator : sweep_case.result().integrators()) {
        *choices.add_integrators() = integrator;
      }
    }
    return convergence(choices, reference);
  }
  if (result.n_trajectories() != 1) {
    throw std::invalid_argument("convergence needs a result of exactly one trajectory, got " +
                                std::to_string(result.n_trajectories()));
  }
  auto is_state = [](const std::string& name) {
    return name.rfind("q[", 0) == 0 || name.rfind("p[", 0) == 0;
  };
  // The state components at the last sample time of each choice (empty when it failed).
  std::vector<std::map<std::string, double>> finals(result.integrators_size());
  double t_end = std::numeric_limits<double>::quiet_NaN();
  for (int c = 0; c < result.integrators_size(); ++c) {
    const auto& integrator = result.integrators(c);
    const int last = integrator.sample_times_size() - 1;
    if (last < 0) continue;
    if (std::isnan(t_end)) t_end = integrator.sample_times(last);
    if (std::abs(integrator.sample_times(last) - t_end) > 1e-9 * std::max(1.0, std::abs(t_end))) {
      throw std::invalid_argument("convergence: the choices end at different times");
    }
    for (const auto& series : integrator.observables()) {
      if (!is_state(series.observable()) || last >= series.count_size()) continue;
      if (series.count(last) == 1) finals[c][series.observable()] = series.mean(last);
    }
  }
  int ref = -1;
  for (int c = 0; c < result.integrators_size(); ++c) {
    const auto& choice = result.integrators(c).choice();
    if (!reference.empty() && choice.integrator() != reference) continue;
    if (finals[c].empty()) continue;
    if (ref < 0 || choice.h() < result.integrators(ref).choice().h()) ref = c;
  }
  if (ref < 0) {
    throw std::invalid_argument(
        reference.empty() ? std::string("convergence: no choice has state observables (q[i], "
                                        "p[i]) at its last sample time")
                          : "convergence: no successful choice of reference integrator '" +
                                reference + "' with state observables");
  }
  std::vector<ConvergenceRow> rows;
  std::map<std::string, std::pair<double, double>> previous;  // integrator -> (h, error)
  for (int c = 0; c < result.integrators_size(); ++c) {
    ConvergenceRow row;
    row.integrator = result.integrators(c).choice().integrator();
    row.h = result.integrators(c).choice().h();
    // The reference, and in a sweep the same choice again in another case.
    row.reference = c == ref || (row.integrator == result.integrators(ref).choice().integrator() &&
                                 row.h == result.integrators(ref).choice().h());
    if (!row.reference && !finals[c].empty()) {
      double e = 0.0;
      for (const auto& [name, value] : finals[ref]) {
        const auto it = finals[c].find(name);
        if (it == finals[c].end()) {
          e = std::numeric_limits<double>::quiet_NaN();
          break;
        }
        e = std::max(e, std::abs(it->second - value));
      }
      if (!std::isnan(e)) {
        row.error = e;
        const auto prev = previous.find(row.integrator);
        if (prev != previous.end() && prev->second.first != row.h && prev->second.second > 0 &&
            e > 0) {
          row.order = std::log(prev->second.second / e) / std::log(prev->second.first / row.h);
        }
        previous[row.integrator] = {row.h, e};
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string convergence_table(const v1::EnsembleResult& result, const std::string& reference) {
  std::ostringstream out;
  out << pad_right("integrator", 14) << "  " << pad_left("h", 10) << "  " << pad_left("error", 10)
      << "  " << pad_left("order", 6) << '\n';
  for (const auto& row : convergence(result, reference)) {
    out << pad_right(row.integrator, 14) << "  " << pad_left(format_double("%g", row.h), 10) << "  "
        << pad_left(row.reference ? std::string("ref") : format_optional(row.error), 10) << "  "
        << pad_left(row.order ? format_double("%.2f", *row.order) : std::string("-"), 6) << '\n';
  }
  return out.str();
}

std::string systems_table(const v1::ListSystemsResponse& systems) {
  std::ostringstream out;
  for (const auto& system : systems.systems()) {
    out << system.name() << ": " << system.description() << '\n';
    if (!system.source().empty()) out << "  source: " << system.source() << '\n';
    for (const auto& p : system.parameters()) {
      out << "  parameter " << p.name() << " [" << p.unit() << "] default "
          << format_double("%g", p.default_value()) << ", range ["
          << format_double("%g", p.min_value()) << ", " << format_double("%g", p.max_value()) << "]"
          << (p.integer() ? ", integer" : "");
      if (!p.description().empty()) out << ": " << p.description();
      out << '\n';
    }
    out << "  invariants: energy";
    for (const auto& invariant : system.invariants()) out << ", " << invariant;
    out << "\n  integrators:";
    for (const auto& integrator : system.integrators()) out << ' ' << integrator;
    out << '\n';
  }
  return out.str();
}

std::string integrators_table(const v1::ListIntegratorsResponse& integrators) {
  std::ostringstream out;
  for (const auto& i : integrators.integrators()) {
    out << i.name() << ": order " << i.order() << (i.implicit() ? ", implicit" : ", explicit")
        << (i.energy_preserving() ? ", energy-preserving" : "");
    if (i.default_newton_max_iter() > 0) {
      out << ", Newton tol " << format_double("%g", i.default_newton_tol()) << " max_iter "
          << i.default_newton_max_iter();
    }
    out << '\n';
    if (!i.description().empty()) out << "  " << i.description() << '\n';
    if (!i.source().empty()) out << "  source: " << i.source() << '\n';
    if (i.requirements_size() > 0) {
      out << "  requires:";
      for (int r = 0; r < i.requirements_size(); ++r) {
        out << (r == 0 ? " " : ", ") << i.requirements(r);
      }
      out << '\n';
    }
  }
  return out.str();
}

std::string job_status(const v1::Job& job) {
  return job_status(job, std::to_string(job.trajectories_done()));
}

std::string job_status(const v1::Job& job, const std::string& done) {
  std::string status = v1::JobState_Name(job.state()) + " " + done + "/" +
                       std::to_string(job.trajectories_total()) + " trajectories";
  if (job.state() == v1::RUNNING && job.steps_total() > 0) {  // advances within trajectories
    char steps[48];
    std::snprintf(
        steps, sizeof steps, ", %.1f %% of the steps",
        100.0 * static_cast<double>(job.steps_done()) / static_cast<double>(job.steps_total()));
    status += steps;
  }
  if (job.cancel_requested() && job.state() == v1::RUNNING) status += " (cancelling)";
  if (!job.waiting_reason().empty()) status += " (waits: " + job.waiting_reason() + ")";
  if (!job.error().empty()) status += ": " + job.error();
  return status;
}

std::string job_line(const v1::Job& job) { return "job " + job.job_id() + " " + job_status(job); }

namespace {

/// `label` on one line (control characters as blanks), cut after `width` bytes at a UTF-8
/// character boundary, "..." marking the cut.
std::string short_label(const std::string& label, std::size_t width) {
  std::string text = label;
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (text.size() <= width) return text;
  std::size_t cut = width;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

/// Time since `created` at `now` ("-" when unset).
std::string age_text(const google::protobuf::Timestamp& created,
                     std::chrono::system_clock::time_point now) {
  if (created.seconds() == 0 && created.nanos() == 0) return "-";
  const double since_epoch = std::chrono::duration<double>(now.time_since_epoch()).count();
  const double created_at = static_cast<double>(created.seconds()) + 1e-9 * created.nanos();
  return eta_text(std::max(0.0, since_epoch - created_at));
}

}  // namespace

std::string jobs_table(const std::vector<v1::Job>& jobs,
                       std::chrono::system_clock::time_point now) {
  if (jobs.empty()) return {};  // nothing on stdout: scripts test for an empty list
  std::vector<std::vector<std::string>> cells = {
      {"job", "state", "done", "system", "age", "label"}};
  std::string notes;  // errors and why queued jobs wait, under the table
  for (const v1::Job& job : jobs) {
    const bool cancelling = job.cancel_requested() && job.state() == v1::RUNNING;
    cells.push_back(
        {job.job_id(), v1::JobState_Name(job.state()) + (cancelling ? " (cancelling)" : ""),
         std::to_string(job.trajectories_done()) + "/" + std::to_string(job.trajectories_total()),
         job.system(), age_text(job.created_time(), now),
         short_label(job.label(), kJobsLabelWidth)});
    if (!job.error().empty()) notes += "job " + job.job_id() + ": " + job.error() + "\n";
    if (!job.waiting_reason().empty()) {
      notes += "job " + job.job_id() + " waits: " + job.waiting_reason() + "\n";
    }
  }
  return aligned(cells, {true, true, false, true, false, true}) + notes;
}

}  // namespace nhsim::client

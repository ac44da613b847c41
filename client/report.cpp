#include "nhsim/client/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

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

/// Why the energy error's growth drift b is not determined by the samples; empty when it is.
std::string growth_caveat(const v1::SeriesStats& e) {
  const v1::VarianceGrowth& g = e.variance_growth();
  char text[200];
  const double relative = std::abs(g.b_stderr() / g.b());
  if (g.samples() < 2 || g.batches() < 2) {
    std::snprintf(text, sizeof text, "no fit: %lld sample times, %lld non-empty batches",
                  static_cast<long long>(g.samples()), static_cast<long long>(g.batches()));
  } else if (!(relative <= kMaxGrowthRelativeError)) {
    std::snprintf(text, sizeof text,
                  "relative standard error %.0f %%: more trajectories, or a variance that does "
                  "not grow (exponent %.2f +- %.2f)",
                  100.0 * relative, g.exponent(), g.exponent_stderr());
  } else {
    return {};
  }
  return text;
}

std::optional<double> finite_or_none(double x) {
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

}  // namespace

std::vector<SummaryRow> summarize(const v1::EnsembleResult& result) {
  std::vector<SummaryRow> rows;
  for (const auto& integrator : result.integrators()) {
    SummaryRow row;
    row.integrator = integrator.choice().integrator();
    row.h = integrator.choice().h();
    row.trajectories_ok = integrator.trajectories_ok();
    row.trajectories_failed = integrator.trajectories_failed();
    row.trajectories_cancelled = integrator.trajectories_cancelled();
    row.steps_per_second = integrator.steps_per_second();
    if (integrator.trajectories_ok() == 0) {  // no statistics (all failed or cancelled)
      rows.push_back(std::move(row));
      continue;
    }
    if (const auto* energy = find_observable(integrator, "energy_error")) {
      const auto& e = *energy;
      if (e.min_size() == e.count_size() && e.max_size() == e.count_size()) {
        row.max_abs_energy_error = max_over_samples(
            e, [&](int i) { return std::max(std::abs(e.min(i)), std::abs(e.max(i))); });
      }
      const int last = e.variance_size() - 1;
      if (last >= 0 && last < e.count_size() && e.count(last) > 1) {
        row.final_energy_error_variance = e.variance(last);
      }
      if (e.has_variance_growth()) {  // absent from results written before it existed
        const double h4 = row.h * row.h * row.h * row.h;
        row.growth_b_over_h4 = finite_or_none(e.variance_growth().b() / h4);
        row.growth_b_over_h4_stderr = finite_or_none(e.variance_growth().b_stderr() / h4);
        if (row.growth_b_over_h4) row.growth_caveat = growth_caveat(e);
      }
    }
    if (const auto* residual = find_observable(integrator, "constraint_residual")) {
      const auto& r = *residual;
      if (r.max_size() == r.count_size()) {
        row.max_constraint_residual = max_over_samples(r, [&](int i) { return r.max(i); });
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string summary_table(const v1::EnsembleResult& result) {
  static const std::vector<std::pair<std::string, std::size_t>> columns = {
      {"integrator", 12}, {"h", 9},          {"ok", 8},     {"failed", 7}, {"steps/s", 10},
      {"max|H-H0|", 10},  {"final var", 10}, {"b/h^4", 10}, {"+- SE", 9},  {"max resid", 10}};
  std::ostringstream out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out << (c == 0 ? pad_right(columns[c].first, columns[c].second)
                   : "  " + pad_left(columns[c].first, columns[c].second));
  }
  out << '\n';
  const std::vector<SummaryRow> rows = summarize(result);
  for (const auto& row : rows) {
    const std::vector<std::string> cells = {
        row.integrator,
        format_double("%g", row.h),
        std::to_string(row.trajectories_ok),
        std::to_string(row.trajectories_failed),
        format_double("%.3e", row.steps_per_second),
        format_optional(row.max_abs_energy_error),
        format_optional(row.final_energy_error_variance),
        format_optional(row.growth_b_over_h4) + (row.growth_caveat.empty() ? "" : "?"),
        row.growth_b_over_h4_stderr ? format_double("%.2e", *row.growth_b_over_h4_stderr) : "-",
        format_optional(row.max_constraint_residual)};
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out << (c == 0 ? pad_right(cells[c], columns[c].second)
                     : "  " + pad_left(cells[c], columns[c].second));
    }
    out << '\n';
  }
  // The fit's range, from the first row that has one.
  for (const auto& integrator : result.integrators()) {
    const auto* e = find_observable(integrator, "energy_error");
    if (e == nullptr || e->variance_growth().samples() < 2) continue;
    const v1::VarianceGrowth& g = e->variance_growth();
    out << "b/h^4: drift of Var(H - H0) = a + b t over " << g.samples() << " sample times in t ["
        << format_double("%g", g.t_min()) << ", " << format_double("%g", g.t_max())
        << "], +- its standard error from " << g.batches() << " batches of trajectories\n";
    break;
  }
  for (const auto& row : rows) {
    if (!row.growth_caveat.empty()) {
      out << "? b/h^4 of " << row.integrator << " (h " << format_double("%g", row.h)
          << "): " << row.growth_caveat << '\n';
    }
  }
  for (int c = 0; c < result.integrators_size(); ++c) {
    const SummaryRow& row = rows[static_cast<std::size_t>(c)];
    const std::int64_t run = row.trajectories_ok + row.trajectories_failed;
    if (row.trajectories_failed == 0 || run == 0) continue;
    out << (result.integrators(c).failed_as_whole() ? "failed: " : "warning: ") << row.integrator
        << " (h " << format_double("%g", row.h) << "): " << row.trajectories_failed << " of " << run
        << " trajectories failed ("
        << format_double("%.1f", 100.0 * static_cast<double>(row.trajectories_failed) /
                                     static_cast<double>(run))
        << (result.integrators(c).failed_as_whole()
                ? " %); failure_policy fail_choice: no statistics are served for it\n"
                : " %); its statistics are over the successful ones only\n");
  }
  if (result.has_until()) {
    const v1::UntilOutcome& u = result.until();
    out << "until: " << (u.reached() ? "every precision target held" : "stopped at the cap")
        << " after " << u.trajectories_used() << " of " << u.trajectories_cap()
        << " trajectories; relative standard errors:";
    for (double r : u.relative_stderr()) out << ' ' << format_double("%.3g", r);
    out << '\n';
  }
  if (result.cancelled()) {
    std::int64_t not_run = 0;
    for (const auto& integrator : result.integrators()) {
      not_run += integrator.trajectories_cancelled();
    }
    out << "cancelled: " << not_run << " trajectory runs were not run\n";
  }
  return out.str();
}

std::string to_csv(const v1::EnsembleResult& result) {
  std::ostringstream out;
  out << "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,"
         "mean_stderr,variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,"
         "q95_upper\n";
  char line[512];
  // One optional column: 17 significant digits, or empty where the series has none.
  auto optional_column = [](const google::protobuf::RepeatedField<double>& q, int i) {
    return i < q.size() ? format_double("%.17g", q.Get(i)) : std::string();
  };
  for (int c = 0; c < result.integrators_size(); ++c) {
    const auto& integrator = result.integrators(c);
    for (const auto& series : integrator.observables()) {
      const int n =
          std::min({integrator.sample_times_size(), series.count_size(), series.mean_size(),
                    series.variance_size(), series.min_size(), series.max_size()});
      for (int i = 0; i < n; ++i) {
        std::snprintf(line, sizeof line, "%d,%s,%.17g,%s,%.17g,%lld,%.17g,%.17g,%.17g,%.17g", c,
                      integrator.choice().integrator().c_str(), integrator.choice().h(),
                      series.observable().c_str(), integrator.sample_times(i),
                      static_cast<long long>(series.count(i)), series.mean(i), series.variance(i),
                      series.min(i), series.max(i));
        out << line;
        for (const auto* column :
             {&series.q05(), &series.q50(), &series.q95(), &series.mean_stderr(),
              &series.variance_stderr(), &series.q05_lower(), &series.q05_upper(),
              &series.q50_lower(), &series.q50_upper(), &series.q95_lower(), &series.q95_upper()})
          out << ',' << optional_column(*column, i);
        out << '\n';
      }
    }
  }
  return out.str();
}

std::vector<ConvergenceRow> convergence(const v1::EnsembleResult& result,
                                        const std::string& reference) {
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
    row.reference = c == ref;
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

std::string job_line(const v1::Job& job) {
  std::string line = "job " + job.job_id() + " " + v1::JobState_Name(job.state()) + " " +
                     std::to_string(job.trajectories_done()) + "/" +
                     std::to_string(job.trajectories_total()) + " trajectories";
  if (job.cancel_requested() && job.state() == v1::RUNNING) line += " (cancelling)";
  if (!job.error().empty()) line += ": " + job.error();
  return line;
}

}  // namespace nhsim::client

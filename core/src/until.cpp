// Precision targets of runs to a requested precision (until.hpp).
#include "until.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "accumulation.hpp"
#include "join.hpp"

namespace nhsim {

std::vector<PreparedTarget> prepare_until(const UntilSpec& until,
                                          const std::vector<IntegratorChoice>& choices,
                                          const std::vector<ObsDef>& observables) {
  std::vector<PreparedTarget> out;
  for (std::size_t i = 0; i < until.targets.size(); ++i) {
    const PrecisionTarget& t = until.targets[i];
    const std::string f = "until.targets[" + std::to_string(i) + "]";
    PreparedTarget p;
    std::size_t matches = 0;
    std::vector<std::string> ids;
    for (std::size_t c = 0; c < choices.size(); ++c) {
      ids.push_back(choices[c].integrator);
      if (choices[c].integrator == t.integrator) {
        p.choice = c;
        ++matches;
      }
    }
    if (matches != 1) {
      throw SpecError(f + ".integrator",
                      matches == 0 ? "names no integrator choice " + echo(t.integrator) +
                                         "; the choices: " + join(ids)
                                   : echo(t.integrator) + " names " + std::to_string(matches) +
                                         " choices; a target needs exactly one");
    }
    bool found = false;
    std::vector<std::string> names;
    for (std::size_t o = 0; o < observables.size(); ++o) {
      names.push_back(observables[o].name);
      if (observables[o].name == t.observable) {
        p.observable = o;
        found = true;
      }
    }
    if (!found) {
      throw SpecError(f + ".observable", "is not sampled: " + echo(t.observable) +
                                             "; the spec's observables: " + join(names));
    }
    if (t.statistic == PrecisionTarget::Statistic::kUnspecified) {
      throw SpecError(f + ".statistic", "is required: growth_b, final_variance or final_mean");
    }
    if (!(t.relative_stderr > 0.0 && t.relative_stderr < 1.0)) {
      throw SpecError(f + ".relative_stderr", "must be in (0, 1)");
    }
    p.statistic = t.statistic;
    p.relative_stderr = t.relative_stderr;
    out.push_back(p);
  }
  return out;
}

double target_relative_stderr(const PreparedTarget& target, const ChoicePartial& partial,
                              const std::vector<double>& sample_times, std::size_t n_observables) {
  double value = 0.0, standard_error = 0.0;
  if (target.statistic == PrecisionTarget::Statistic::kGrowthDrift) {
    const BatchLayout layout{batch_sample_indices(sample_times), n_observables};
    const VarianceGrowth g = variance_growth(partial, layout, target.observable, sample_times);
    value = g.b;
    standard_error = g.b_stderr;
  } else {
    const CellStats& last =
        partial.cells[(sample_times.size() - 1) * n_observables + target.observable];
    const bool variance = target.statistic == PrecisionTarget::Statistic::kFinalVariance;
    value = variance ? last.variance() : last.mean();
    standard_error = variance ? last.variance_stderr() : last.mean_stderr();
  }
  const double relative = std::abs(standard_error / value);
  return std::isfinite(relative) ? relative : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace nhsim

// Internal: the precision targets of a run to a requested precision (UntilSpec), checked against
// the spec and evaluated on a choice's partial result.
#pragma once

#include <cstddef>
#include <vector>

#include "nhsim/ensemble_partial.hpp"
#include "nhsim/ensemble_spec.hpp"
#include "observables.hpp"

namespace nhsim {

/// A PrecisionTarget resolved against the spec: its choice and observable as indices.
struct PreparedTarget {
  std::size_t choice = 0;
  std::size_t observable = 0;
  PrecisionTarget::Statistic statistic = PrecisionTarget::Statistic::kUnspecified;
  double relative_stderr = 0.0;
};

/// The targets of `until`, each checked: its integrator names exactly one choice, its
/// observable is sampled, its statistic is set, relative_stderr is in (0, 1). Throws SpecError
/// naming the field ("until.targets[i].integrator", ...).
std::vector<PreparedTarget> prepare_until(const UntilSpec& until,
                                          const std::vector<IntegratorChoice>& choices,
                                          const std::vector<ObsDef>& observables);

/// The relative standard error |SE / value| of the target's statistic over the trajectories of
/// `partial` (the target's choice), whose sample times are `sample_times`; NaN where the
/// statistic or its standard error is undefined or the value is 0.
double target_relative_stderr(const PreparedTarget& target, const ChoicePartial& partial,
                              const std::vector<double>& sample_times, std::size_t n_observables);

}  // namespace nhsim

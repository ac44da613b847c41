// The ensemble specification: one system with parameters, a set of initial conditions, one or
// more integrator choices, and optionally a sweep or a run to a requested precision
// (docs/design.md, "Ensemble semantics"). The runner is nhsim/ensemble.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/custom/definition.hpp"
#include "nhsim/lane_settings.hpp"
#include "nhsim/outputs.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/statistics.hpp"
#include "nhsim/variance_growth.hpp"

namespace nhsim {

/// One precision target of a run to a requested precision (EnsembleSpec::until): the relative
/// standard error of one statistic of one integrator choice's observable.
struct PrecisionTarget {
  /// growth_b: the drift b of the variance growth model (nhsim/variance_growth.hpp);
  /// final_variance, final_mean: the variance and the mean at the last sample time.
  enum class Statistic { kUnspecified = 0, kGrowthDrift = 1, kFinalVariance = 2, kFinalMean = 3 };
  std::string integrator;  ///< the choice: an integrator id that names exactly one choice
  std::string observable = "energy_error";
  Statistic statistic = Statistic::kUnspecified;
  double relative_stderr = 0.0;  ///< standard error / |statistic| at most this; in (0, 1)
};

/// A run to a requested precision: a pilot round plans a count of trajectories
/// (until_planned_count), the trajectories run in rounds of kUntilRound in index order, and the
/// run stops at the first round boundary at or past the planned count where every target holds,
/// or at the initial conditions' count (the cap; reported, not an error). Planning first keeps
/// the stop from selecting a small standard error, which biases the statistic (docs/statistics.md).
/// Empty targets: every trajectory runs.
struct UntilSpec {
  std::vector<PrecisionTarget> targets;
  bool active() const { return !targets.empty(); }
};

/// One axis of a sweep (EnsembleSpec::sweep): fields that vary together, each with one value per
/// step of the axis (all the same length). The fields a sweep may set are listed by
/// nhsim/sweep.hpp (e.g. "parameters.n", "h", "integrators[2].newton_tol",
/// "controls[0].amplitude").
struct SweepAxis {
  struct Field {
    std::string field;
    std::vector<double> values;
  };
  std::vector<Field> fields;  ///< in name order (the order of a case's values)
};

struct EnsembleSpec {
  std::string system;  ///< system id, see list_systems()
  /// A user-defined system instead of a catalogue one (then `system` stays empty and
  /// `parameters` is empty: the definition carries its own). Exactly one of the two is set.
  std::optional<CustomSystemSpec> custom_system;
  std::map<std::string, double> parameters;  ///< overrides of the system's named parameters
  InitialConditions initial_conditions;      ///< one source; see InitialConditions
  std::vector<IntegratorChoice> integrators;
  double t_final = 0.0;  ///< > 0; must be an integer multiple of each h
  /// Observables to sample. Empty = defaults: energy_error, relative_energy_error,
  /// constraint_residual, and for systems with holonomic constraints g(q) = 0 also
  /// position_constraint_residual (max_k |g_k(q)|) and velocity_constraint_residual
  /// (max_k |(G(q) M^-1 p)_k|, G = Dg).
  /// State components may be requested as "q[i]" or "p[i]", and a system's own observables
  /// (SystemModel::observable_names(), e.g. "x_s", "y_s" of chaplygin_sleigh_com) by name.
  std::vector<std::string> observables;
  /// Control inputs, one per input of the system in its order (e.g. snakeboard: u_psi, u_phi).
  /// Empty = every input zero. A system without inputs accepts only an empty list.
  std::vector<ControlSpec> controls;
  /// External loads ([Gebhardt2020] eq. (84)); summed. Empty = unloaded. A system without loads
  /// accepts only an empty list (SpecError "loads").
  std::vector<LoadSpec> loads;
  /// Per-trajectory outputs and histograms beyond the statistics; empty = none.
  OutputSpec outputs;
  /// Stop at a requested precision (UntilSpec); inactive by default.
  UntilSpec until;
  /// What a failed trajectory does to its choice's statistics: kExclude (the default) leaves it
  /// out, so they are conditional on success (the summaries warn); kFailChoice withholds the
  /// statistics of a choice with any failed trajectory (IntegratorResult::failed_as_whole).
  enum class FailurePolicy { kExclude = 0, kFailChoice = 1 };
  FailurePolicy failure_policy = FailurePolicy::kExclude;
  /// A sweep: the grid of every combination of the axes' steps, the first axis varying slowest.
  /// Each combination is a case: this spec with the axes' fields set to that step's values,
  /// run as its own ensemble (nhsim/sweep.hpp). Empty: one ensemble, no cases.
  std::vector<SweepAxis> sweep;
};

/// Trajectories per round of a run to a requested precision (UntilSpec): the targets are
/// checked after each round, so a run stops at a multiple of kUntilRound (every batch then holds
/// the same number of trajectories) or at the cap.
inline constexpr std::int64_t kUntilRound = 10 * kBatches;
/// The fewest rounds a run to a requested precision plans (until_planned_count).
inline constexpr std::int64_t kUntilMinRounds = 2;
/// The planned count's factor over the pilot's estimate (r_pilot / target)^2 rounds: the
/// estimate is itself noisy under heavy tails, and a count planned too short falls back on
/// stopping when a standard error happens to be small.
inline constexpr double kUntilPlanInflation = 2.0;

}  // namespace nhsim

// The ensemble result: per integrator choice, the statistics over time of each observable, the
// failures, the variance growth fits, and a sweep's results case by case.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/ensemble_spec.hpp"
#include "nhsim/outputs.hpp"
#include "nhsim/statistics.hpp"
#include "nhsim/variance_growth.hpp"

namespace nhsim {

/// Per-sample statistics of one observable over the successful trajectories.
/// All vectors have one entry per sample time. variance is the unbiased sample variance
/// (0 where count < 2). q05, q50, q95 are the 5 %, 50 % and 95 % quantiles from a
/// QuantileSketch (nhsim/quantiles.hpp): exact interpolated order statistics for count <= 400,
/// within 1 % relative error beyond; NaN where count = 0. Accuracy of the others:
/// nhsim/statistics.hpp. Like every field here they are bit-identical for any thread count,
/// shard split and merge order. Uncertainties (docs/statistics.md): the standard errors of the
/// mean and of the variance (CellStats), and for each quantile a distribution-free 95 %
/// confidence interval [lower, upper] (quantile_interval_ranks(): order statistics; beyond 400
/// values the sketch's order statistics widened by its relative error; -inf or +inf where too
/// few values bound the quantile).
struct SeriesStats {
  std::string observable;
  std::vector<std::int64_t> count;
  std::vector<double> mean;
  std::vector<double> variance;
  std::vector<double> min;
  std::vector<double> max;
  std::vector<double> q05;
  std::vector<double> q50;
  std::vector<double> q95;
  std::vector<double> mean_stderr;      ///< NaN where count < 2
  std::vector<double> variance_stderr;  ///< NaN where count < 4 (CellStats::variance_stderr)
  /// The variance's 95 % confidence interval (CellStats::variance_interval: Bonett's, robust
  /// to skew and heavy tails); NaN where variance_stderr is.
  std::vector<double> variance_lower, variance_upper;
  std::vector<double> q05_lower, q05_upper;
  std::vector<double> q50_lower, q50_upper;
  std::vector<double> q95_lower, q95_upper;
  /// Var(t) = a + b t over the batch sample times, with jackknife standard errors
  /// (nhsim/variance_growth.hpp): b / h^4 is [Celledoni2019]'s random-walk constant (Fig. 2).
  VarianceGrowth variance_growth;
  /// Least-squares slope of variance against t through the origin: sum(t v) / sum(t^2). Kept
  /// for comparison; the growth model above is the one the data support (docs/statistics.md).
  double variance_slope = 0.0;
  /// variance_slope / h^4.
  double variance_slope_over_h4 = 0.0;
  /// Standard error of variance_slope (SlopeFit, treating the sample times as independent,
  /// which they are not); NaN with fewer than 2 samples in the fit.
  double variance_slope_stderr = 0.0;
  /// The fit's sample times: how many, and the first and last (count >= 2, t > 0).
  std::int64_t variance_fit_samples = 0;
  double variance_fit_t_min = 0.0;
  double variance_fit_t_max = 0.0;
};

/// Failed trajectories listed per integrator choice (and sweep case): the first ones in index
/// order; trajectories_failed counts them all, and outputs.summary gives every trajectory's
/// status and reason where all are wanted. Keeps a job whose trajectories all fail within its
/// estimate (about 150 bytes a record).
inline constexpr std::size_t kMaxListedFailures = 100;

struct TrajectoryFailure {
  std::int64_t trajectory = 0;  ///< index of the initial condition
  std::string integrator;       ///< integrator id
  double time = 0.0;            ///< time of the last good state
  std::string reason;
};

struct IntegratorResult {
  IntegratorChoice choice;
  std::int64_t n_steps = 0;  ///< steps per trajectory
  std::vector<double> sample_times;
  std::vector<SeriesStats> observables;
  std::int64_t trajectories_ok = 0;
  std::int64_t trajectories_failed = 0;
  std::int64_t trajectories_cancelled = 0;  ///< not run because the job was cancelled
  /// The first kMaxListedFailures failed trajectories, in index order.
  std::vector<TrajectoryFailure> failures;
  std::int64_t steps_completed = 0;  ///< steps taken, all trajectories
  double wall_seconds = 0.0;         ///< summed over the shards that computed it
  double steps_per_second = 0.0;     ///< trajectory-steps per wall second
  ChoiceOutputs outputs;             ///< what EnsembleSpec::outputs asked for
  /// EnsembleSpec::FailurePolicy::kFailChoice and a trajectory failed: `observables` is empty
  /// (no statistics conditional on success are served); the failures say which and why.
  bool failed_as_whole = false;
};

/// The ratio of two integrator choices' variances of one observable at t_final, over the same
/// initial states, with its jackknife standard error over the batches (both choices leave out
/// the same batch together, so the pairing of common random numbers is used: the ratio is far
/// better determined than two independent variances would make it). NaN where a variance is 0.
struct VarianceRatio {
  std::int64_t numerator = 0;    ///< choice index
  std::int64_t denominator = 0;  ///< choice index, > numerator
  std::string observable;
  double ratio = std::numeric_limits<double>::quiet_NaN();
  double ratio_stderr = std::numeric_limits<double>::quiet_NaN();
  /// 95 % confidence interval (jackknife_interval()).
  double ratio_lower = std::numeric_limits<double>::quiet_NaN();
  double ratio_upper = std::numeric_limits<double>::quiet_NaN();
  std::int64_t batches = 0;  ///< non-empty batches behind the standard error
};

/// How a run to a requested precision ended (EnsembleSpec::until).
struct UntilOutcome {
  bool requested = false;              ///< the spec had targets
  bool reached = false;                ///< every target held (else the cap stopped it)
  std::int64_t trajectories_used = 0;  ///< = EnsembleResult::n_trajectories
  std::int64_t trajectories_cap = 0;   ///< the initial conditions' count
  /// The count planned from the pilot (until_planned_count): no target was looked at before it.
  std::int64_t trajectories_planned = 0;
  std::vector<double> relative_stderr;  ///< per target, when the run stopped (NaN: undefined)
};

/// One field's value in a sweep case.
struct SweepValue {
  std::string field;  ///< as in SweepAxis::Field, e.g. "parameters.n"
  double value = 0.0;
};

struct SweepCaseResult;

struct EnsembleResult {
  std::string system;
  std::map<std::string, double> parameters;  ///< all parameters, defaults filled in
  /// Trajectories the statistics are over: the spec's count, or fewer for a run that reached
  /// its requested precision first (`until`).
  std::int64_t n_trajectories = 0;
  UntilOutcome until;
  bool cancelled = false;
  /// A running job's statistics so far (finish_prefix): n_trajectories of the spec's count.
  bool partial = false;
  std::vector<IntegratorResult> integrators;  ///< in the order of the spec
  /// Every pair of choices i < j (with the same t_final, which every spec has), every
  /// observable: Var_i / Var_j at t_final.
  std::vector<VarianceRatio> variance_ratios;
  /// OutputSpec::initial_states, in index order (a trajectory whose initial state could not be
  /// drawn has none; it is a failure of every choice).
  std::vector<TrajectoryState> initial_states;
  /// A sweep's cases in grid order (EnsembleSpec::sweep), each the result the case would have as
  /// a job of its own, bit for bit. A sweep's own `integrators`, `variance_ratios` and
  /// `initial_states` are then empty; `parameters` holds the unswept ones (defaults filled in),
  /// `cancelled` is any case's.
  std::vector<SweepCaseResult> cases;
};

/// One case of a sweep: its fields' values, in axis order (within an axis, in name order), and
/// its result.
struct SweepCaseResult {
  std::vector<SweepValue> values;
  EnsembleResult result;
};

}  // namespace nhsim

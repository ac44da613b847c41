// Ensemble specification, result and runner: the contract between nhsim_core and its callers.
//
// An ensemble is one system with parameters, a set of initial conditions and one or more
// integrator choices; every initial condition runs with every choice (docs/design.md, "Ensemble
// semantics"). The core knows nothing of gRPC or protobuf: server/ converts to and from these
// plain structs, one file per direction.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
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

/// Progress callback: trajectories finished (ok + failed + cancelled) and total =
/// n_trajectories x choice_count().
/// Called from worker threads, serialised by the runner; must be cheap.
using ProgressFn = std::function<void(std::int64_t done, std::int64_t total)>;

struct RunOptions {
  int threads = 0;                            ///< 0 = oneTBB default
  const std::atomic<bool>* cancel = nullptr;  ///< set to stop promptly; result.cancelled
  ProgressFn progress;                        ///< optional
  /// Optional: trajectory-steps are added to it as they are taken (relaxed adds, about every
  /// kStepsPerReport steps of a thread and at each trajectory's end), so that progress
  /// advances within long trajectories. A trajectory that fails, is cancelled or cannot start
  /// adds its remaining steps when it ends: a run that completes adds trajectories x the sum
  /// of its choices' steps, exactly. The until pilot adds nothing.
  std::atomic<std::int64_t>* steps = nullptr;
  /// SIMD lanes for the pairs that have lane kernels (nhsim/lane_settings.hpp); the result is
  /// the same bits for every setting. Throws std::invalid_argument (from run_partial) for an
  /// instruction set this CPU lacks.
  LaneSettings lanes;
};

/// Steps of one thread between two adds to RunOptions::steps.
inline constexpr std::int64_t kStepsPerReport = 65536;

/// Trajectory indices [begin, end).
struct TrajectoryRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  friend bool operator==(const TrajectoryRange&, const TrajectoryRange&) = default;
};

/// Shard `shard` of `shards` over n_trajectories trajectories: [floor(shard n / shards),
/// floor((shard + 1) n / shards)), so the shards partition [0, n) into ranges whose sizes
/// differ by at most one. Throws std::invalid_argument naming "shard" unless 0 <= shard <
/// shards and n_trajectories >= 0.
TrajectoryRange shard_range(std::int64_t n_trajectories, std::int64_t shard, std::int64_t shards);

/// The mergeable state of one integrator choice over a set of trajectories.
struct ChoicePartial {
  std::vector<CellStats> cells;  ///< [sample * n_observables + observable]
  /// Per batch (nhsim/variance_growth.hpp), at the batch sample times f (the indices of
  /// batch_sample_indices()): [(batch * n_batch_samples + f) * n_observables + observable].
  std::vector<MomentSums> batch_cells;
  std::vector<TrajectoryFailure> failures;  ///< the first kMaxListedFailures, in index order
  std::int64_t ok = 0, failed = 0, cancelled = 0, steps = 0;
  double wall_seconds = 0.0;  ///< not part of the statistics (timing varies)
  // Per-trajectory outputs (OutputSpec), each in index order.
  std::vector<TrajectoryState> initial_states;  ///< recorded by the first choice only
  std::vector<TrajectoryState> final_states;
  std::vector<SampledTrajectory> sampled;
  std::vector<TrajectorySummary> summary;
  /// Histogram counts: per histogram, per time, its bins then below, above and non-finite.
  std::vector<std::int64_t> histogram_counts;
};

/// The statistics of a set of trajectory index ranges of one spec, for every integrator choice
/// (docs/design.md "Ensemble semantics": the one mechanism behind shards, checkpoints and merges).
/// Merging partials in any order and grouping gives the same bits.
struct PartialResult {
  /// Identifies the spec; set by the caller (the service and the CLI use the SHA-256 of the
  /// deterministically serialised spec message). Partials of different specs do not merge.
  std::string spec_hash;
  std::int64_t n_trajectories = 0;      ///< of the whole spec
  std::vector<TrajectoryRange> ranges;  ///< covered: sorted, disjoint, adjacent ones joined
  /// One per integrator choice, in spec order; a sweep's case by case (choice_count()).
  std::vector<ChoicePartial> choices;
};

/// Thrown when partial results do not belong together: different spec hashes, trajectory
/// counts or shapes, overlapping ranges, or (for finish()) missing ranges. what() says which.
class PartialMismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PreparedSpec;  // core/src/prepared_spec.hpp

/// Thrown by Problem's constructor when its `abandon` asks it to stop (the client that sent the
/// spec went away): no result, no error in the spec.
class Abandoned : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A spec checked once and bound to its system model (parameters completed, controls and loads
/// bound, observables, outputs and `until` resolved, user-defined systems compiled): what a job
/// carries from submission to its result, so that no chunk, round or finish() checks or compiles
/// it again. Immutable; copies share it, and threads may use one Problem at once.
class Problem {
 public:
  /// Checks `spec` (validate()'s checks, in its order). Throws SpecError naming the first bad
  /// field. `abandon`, when given, is asked before each sweep case is checked (each may compile
  /// a user-defined system): once it returns true the constructor throws Abandoned.
  explicit Problem(EnsembleSpec spec, const std::function<bool()>& abandon = {});
  const EnsembleSpec& spec() const { return *spec_; }
  /// The resolved spec; for the core's own use. A sweep has none (its cases have).
  const PreparedSpec& prepared() const { return *prepared_; }
  struct Case;
  /// A sweep's cases in grid order, each checked as a spec of its own; empty without a sweep.
  const std::vector<Case>& cases() const { return *cases_; }
  bool is_sweep() const { return !cases_->empty(); }

 private:
  std::shared_ptr<const EnsembleSpec> spec_;
  std::shared_ptr<const PreparedSpec> prepared_;
  std::shared_ptr<const std::vector<Case>> cases_;
};

struct Problem::Case {
  std::vector<SweepValue> values;  ///< the case's fields, as SweepCaseResult::values
  Problem problem;
};

/// Runs trajectories [range.begin, range.end) of the spec; 0 <= begin <= end <= the
/// trajectory count, else SpecError "range". Throws SpecError on an invalid spec
/// (the Problem overload: only for the range).
PartialResult run_partial(const Problem& problem, TrajectoryRange range,
                          const RunOptions& options = {});
PartialResult run_partial(const EnsembleSpec& spec, TrajectoryRange range,
                          const RunOptions& options = {});

/// into becomes the partial of both sets of ranges. Throws PartialMismatch (into unchanged)
/// for different spec hashes, trajectory counts or choice shapes, or overlapping ranges.
void merge_partial(PartialResult& into, const PartialResult& from);

/// The ensemble result of a partial that covers every trajectory of `spec`, its quantiles
/// computed on `threads` threads (0 = oneTBB default). Throws PartialMismatch naming the first
/// missing range, or the shape that does not fit the spec; SpecError on an invalid spec.
/// `partial` is taken by value: pass an rvalue, and its per-trajectory outputs move into the
/// result instead of being copied (they may be most of a job's memory).
EnsembleResult finish(const Problem& problem, PartialResult partial, int threads = 0);
EnsembleResult finish(const EnsembleSpec& spec, PartialResult partial, int threads = 0);

/// The result of a cancelled ensemble: as finish(), but the trajectories `partial` does not
/// cover count as cancelled (result.cancelled is then true). `partial` may cover nothing
/// (an empty PartialResult). Throws PartialMismatch for a shape that does not fit the spec;
/// SpecError on an invalid spec.
EnsembleResult finish_cancelled(const Problem& problem, PartialResult partial, int threads = 0);
EnsembleResult finish_cancelled(const EnsembleSpec& spec, PartialResult partial, int threads = 0);

/// Checks a spec without running it (Problem(spec) keeps what the checks built). Throws
/// SpecError naming the field. Applies the same checks run_ensemble() applies.
void validate(const EnsembleSpec& spec);

/// Number of trajectories the spec asks for (explicit states or generator count); a sweep runs
/// them in each case.
std::int64_t trajectory_count(const EnsembleSpec& spec);

/// Integrator choices over every case of a sweep (the spec's choices times the cases), without
/// a sweep the spec's choices: a run is trajectory_count() x choice_count() trajectories.
std::int64_t choice_count(const EnsembleSpec& spec);

/// What a spec will cost, known before it runs (docs/design.md "Admission control"). A sweep's
/// is the sum of its cases' (`trajectories` excepted: every case runs the same ones).
struct CostEstimate {
  std::int64_t trajectories = 0;
  double trajectory_steps = 0;  ///< trajectories x sum over choices of t_final / h
  double generator_draws = 0;   ///< at most: trajectories x max_attempts (energy shell), else 0
  /// Statistics cells: sum over choices of samples x observables; the int64 maximum where
  /// that sum does not fit.
  std::int64_t cells = 0;
  /// Memory of the statistics while the job runs, bytes: every cell with its quantile sketch's
  /// exact values (min(trajectories, 400) per cell; bucket counts beyond are usually fewer), the
  /// batch cells (nhsim/variance_growth.hpp) and the listed failures at their most
  /// (kMaxListedFailures per choice, kFailureBytes each), twice (a checkpoint or merge holds a
  /// copy). A planning figure, not a bound.
  double statistics_bytes = 0;
  /// Size of the serialized result, bytes: about 125 per cell, 8 per sample time, the listed
  /// failures at their most and the outputs.
  double result_bytes = 0;
  /// The per-trajectory outputs and histograms (EnsembleSpec::outputs), bytes: 8 per value.
  /// Held in memory while the job runs, and part of result_bytes.
  double output_bytes = 0;
};

/// A listed failure's bytes in the estimate: index, integrator, time and a reason of up to
/// about 100 characters.
inline constexpr double kFailureBytes = 150.0;

/// The cost of running `spec`. Throws SpecError like validate().
CostEstimate estimate_cost(const Problem& problem);
CostEstimate estimate_cost(const EnsembleSpec& spec);

/// For a spec with `until`: the relative standard error of each target over the trajectories
/// of `prefix`, a partial that covers [0, m) (NaN where a statistic is undefined), and whether
/// every target holds. Throws SpecError on an invalid spec, PartialMismatch unless `prefix`
/// covers exactly [0, m) for some m.
bool until_reached(const Problem& problem, const PartialResult& prefix,
                   std::vector<double>* relative_stderr = nullptr);
bool until_reached(const EnsembleSpec& spec, const PartialResult& prefix,
                   std::vector<double>* relative_stderr = nullptr);

/// For a spec with `until`: the trajectories a run to a requested precision runs before it
/// looks at its targets, planned from a pilot, the cap's last round [n - kUntilRound, n), which
/// is not part of the estimate: ceil(max(kUntilMinRounds, kUntilPlanInflation * (r / target)^2))
/// rounds for the target that needs the most, r its relative standard error over the pilot, at
/// most the cap n. The cap itself where n <= kUntilMinRounds * kUntilRound (no pilot run) or
/// where a target's statistic is undefined over the pilot. Runs the pilot with `options`
/// (progress not reported; a cancel leaves the plan meaningless, for the caller to notice).
/// Deterministic like run_ensemble. Throws SpecError on an invalid spec or a sweep.
std::int64_t until_planned_count(const Problem& problem, const RunOptions& options = {});

/// The result of a run to a requested precision over `prefix` (a partial covering [0, m)) that
/// planned `planned` trajectories (until_planned_count): the statistics of the first m
/// trajectories, with result.until filled in. Throws as finish().
EnsembleResult finish_until(const Problem& problem, PartialResult prefix, std::int64_t planned,
                            int threads = 0);
EnsembleResult finish_until(const EnsembleSpec& spec, PartialResult prefix, std::int64_t planned,
                            int threads = 0);

/// The result so far of a run whose first m trajectories are done (`prefix`, a partial
/// covering [0, m)): the statistics of those m, bit for bit the result of the spec cut to its
/// first m trajectories, with result.partial set. A running job's live view. Throws as
/// finish(), and PartialMismatch unless `prefix` covers exactly [0, m) for some m.
EnsembleResult finish_prefix(const Problem& problem, PartialResult prefix, int threads = 0);

/// Runs the ensemble on oneTBB: finish(spec, run_partial(spec, {0, n})); with `until`, rounds
/// of kUntilRound trajectories up to the planned count (until_planned_count) and on until the
/// targets hold (finish_until). Deterministic: the result is bit-identical for any thread
/// count, and to any split into partials, merged.
/// Throws SpecError on an invalid spec; never throws for a failing trajectory (it is counted
/// in trajectories_failed and listed in failures).
EnsembleResult run_ensemble(const Problem& problem, const RunOptions& options = {});
EnsembleResult run_ensemble(const EnsembleSpec& spec, const RunOptions& options = {});

}  // namespace nhsim

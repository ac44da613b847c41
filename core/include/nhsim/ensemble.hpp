// The ensemble runner: the contract between nhsim_core and its callers. A Problem (a spec checked
// once) runs over trajectory ranges into partial results, which merge and finish into the
// result. The spec, result and partial types have headers of their own (ensemble_spec.hpp,
// ensemble_result.hpp, ensemble_partial.hpp), which the core's own headers include instead of
// this one. The core knows nothing of gRPC or protobuf: server/ converts to and from these plain
// structs, one file per direction.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/ensemble_partial.hpp"
#include "nhsim/ensemble_result.hpp"
#include "nhsim/ensemble_spec.hpp"
#include "nhsim/lane_settings.hpp"

namespace nhsim {

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

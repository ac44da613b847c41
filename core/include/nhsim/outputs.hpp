// Per-trajectory outputs and histograms: what a spec may ask for beyond the statistics, and
// what the result then holds (docs/design.md "Ensemble semantics": requested per-trajectory outputs
// are bounded by limits checked at submission, see estimate_cost()).
//
// Every record names its trajectory index; lists are in index order, so that they merge across
// blocks, shards and checkpoints to the same result as one run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nhsim/spec_types.hpp"

namespace nhsim {

/// Which trajectories an output covers: every one (`all`), or the listed indices (strictly
/// increasing, each in [0, n_trajectories)). Both empty: none.
struct TrajectorySelection {
  bool all = false;
  std::vector<std::int64_t> indices;

  bool empty() const { return !all && indices.empty(); }
};

/// A histogram of one observable at chosen sample times, over the successful trajectories.
/// Bins are [edges[k], edges[k + 1]), the last one closed (as numpy.histogram).
struct HistogramSpec {
  std::string observable;     ///< one of the spec's observables (by name)
  std::vector<double> times;  ///< each a sample time of every integrator choice
  std::vector<double> edges;  ///< >= 2, finite, strictly increasing; observable units
};

/// The per-trajectory outputs a spec asks for (EnsembleSpec::outputs). Refused with SpecError
/// naming the field: an index out of range or out of order, `all` together with indices,
/// `sampled_state` without sampled trajectories, and the histogram faults above.
struct OutputSpec {
  /// The initial state (q, p) of each selected trajectory, as the ensemble computed it: sent
  /// back as ExplicitStates they reproduce those trajectories bit for bit.
  TrajectorySelection initial_states;
  /// The state at t_final of each selected trajectory, per integrator choice (successful ones).
  TrajectorySelection final_states;
  /// Trajectories whose every sample of every observable is returned, per integrator choice.
  TrajectorySelection sampled;
  /// Also return (q, p) at each sample of the sampled trajectories.
  bool sampled_state = false;
  /// A TrajectorySummary of every trajectory, per integrator choice.
  bool summary = false;
  std::vector<HistogramSpec> histograms;

  bool empty() const {
    return initial_states.empty() && final_states.empty() && sampled.empty() && !summary &&
           histograms.empty();
  }
};

/// One trajectory's state: q, p of length nq (canonical coordinates of the system).
struct TrajectoryState {
  std::int64_t trajectory = 0;
  CanonicalState state;
};

/// One trajectory's samples: values[sample * n_observables + observable] for the samples it
/// reached (all of them unless it failed), in the result's observable order; with
/// OutputSpec::sampled_state also q and p, [sample * nq + component].
struct SampledTrajectory {
  std::int64_t trajectory = 0;
  std::int64_t samples = 0;  ///< samples reached
  std::vector<double> values;
  std::vector<double> q;
  std::vector<double> p;
};

/// How one trajectory went with one integrator choice. The maxima are over its sample times
/// (the observables' sampling, not every step).
struct TrajectorySummary {
  enum class Status { kOk = 0, kFailed = 1, kCancelled = 2 };
  std::int64_t trajectory = 0;
  Status status = Status::kOk;
  double final_time = 0.0;               ///< t_final, or the time of the last good state
  double max_abs_energy_error = 0.0;     ///< max |H - H0| over the samples reached
  double max_constraint_residual = 0.0;  ///< max |mu(q) M^-1 p| (inf-norm) over the samples
  std::string reason;                    ///< why it failed; empty when ok
};

/// A histogram's counts at one sample time: counts[k] in bin k; below edges[0], above
/// edges.back(), and non-finite values counted apart.
struct HistogramCounts {
  double time = 0.0;
  std::vector<std::int64_t> counts;
  std::int64_t below = 0, above = 0, non_finite = 0;
};

struct HistogramResult {
  std::string observable;
  std::vector<double> edges;
  std::vector<HistogramCounts> at;  ///< one per time of the HistogramSpec, in its order
};

/// The outputs of one integrator choice (IntegratorResult::outputs).
struct ChoiceOutputs {
  std::vector<TrajectoryState> final_states;
  std::vector<SampledTrajectory> sampled;
  std::vector<TrajectorySummary> summary;
  std::vector<HistogramResult> histograms;  ///< in the spec's order
};

}  // namespace nhsim

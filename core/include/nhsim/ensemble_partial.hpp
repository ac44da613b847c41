// Partial results: the mergeable statistics of a set of trajectory index ranges, the one
// mechanism behind shards, checkpoints and merges (docs/design.md, "Partial results").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/ensemble_result.hpp"
#include "nhsim/outputs.hpp"
#include "nhsim/statistics.hpp"
#include "nhsim/variance_growth.hpp"

namespace nhsim {

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

/// The trajectories `partial` covers: the sum of its ranges' lengths.
inline std::int64_t covered_count(const PartialResult& partial) {
  std::int64_t covered = 0;
  for (const TrajectoryRange& r : partial.ranges) covered += r.end - r.begin;
  return covered;
}

/// Thrown when partial results do not belong together: different spec hashes, trajectory
/// counts or shapes, overlapping ranges, or (for finish()) missing ranges. what() says which.
class PartialMismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace nhsim

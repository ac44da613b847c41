// Internal: a block of trajectories' outcomes, and their merge into a choice's partial result.
// The statistics are associative (nhsim/statistics.hpp), so blocks may merge in any order.
#pragma once

#include <tbb/task_arena.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim {

/// The outcomes of one block of trajectories.
struct BlockOutcome {
  /// The samples of each successful trajectory, [trajectory * n_cells + cell].
  std::vector<double> ok_samples;
  std::vector<TrajectoryFailure> failures;
  std::int64_t ok = 0, failed = 0, cancelled = 0, steps = 0;
  // Per-trajectory outputs, as in ChoicePartial.
  std::vector<TrajectoryState> initial_states, final_states;
  std::vector<SampledTrajectory> sampled;
  std::vector<TrajectorySummary> summary;
  std::vector<std::int64_t> histogram_counts;
};

/// Empty statistics over n_cells cells and histogram_cells histogram counts.
ChoicePartial empty_choice_partial(std::size_t n_cells, std::size_t histogram_cells);

/// Adds one successful trajectory's samples (n_cells values) to a block; `block_size` bounds the
/// block's trajectories (for the one reservation of ok_samples).
void add_successful(BlockOutcome& block, const std::vector<double>& samples,
                    std::int64_t block_size);

/// Adds a block's samples, failures, counts and outputs to `into`.
void merge_block(ChoicePartial& into, const BlockOutcome& block);

/// Merges `from` into `into` (same number of cells and histogram counts); failures and
/// outputs stay in index order.
void merge_choice(ChoicePartial& into, const ChoicePartial& from);

/// The per-observable statistics of the cells (count, mean, variance, min, max, quantiles,
/// variance slope). Quantiles are computed in parallel in `arena`; each value depends only on
/// its own cell.
std::vector<SeriesStats> series_statistics(const ChoicePartial& partial,
                                           const std::vector<std::string>& names,
                                           const std::vector<double>& sample_times, double h,
                                           tbb::task_arena& arena);

}  // namespace nhsim

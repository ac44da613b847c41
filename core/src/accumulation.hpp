// Internal: the statistics of a set of trajectories for one integrator choice, laid out as
// cells [sample * n_obs + obs]. A block's statistics are merged into the totals in block order,
// so the result does not depend on the thread count (ensemble.cpp).
#pragma once

#include <tbb/task_arena.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/quantiles.hpp"
#include "nhsim/statistics.hpp"

namespace nhsim {

/// Statistics of one block of trajectories, or of the running total.
struct Accum {
  std::vector<RunningStats> stats;  ///< [sample * n_obs + obs]
  /// Totals: one sketch per cell. Blocks: empty.
  std::vector<QuantileSketch> quantiles;
  /// Blocks: the samples of each successful trajectory in index order,
  /// [trajectory * n_cells + cell]. Totals: empty.
  std::vector<double> ok_samples;
  std::vector<TrajectoryFailure> failures;
  std::int64_t ok = 0, failed = 0, cancelled = 0, steps = 0;
};

/// Empty statistics of a block over n_cells cells.
Accum block_accum(std::size_t n_cells);

/// Empty totals over n_cells cells for n_traj trajectories (sketches reserved).
Accum total_accum(std::size_t n_cells, std::int64_t n_traj);

/// Adds one successful trajectory's samples (n_cells values) to a block; `block_size` bounds the
/// block's trajectories (for the one reservation of ok_samples).
void add_successful(Accum& block, const std::vector<double>& samples, std::int64_t block_size);

/// Merges a block into the totals: moments, then each cell's sketch gets the block's values in
/// trajectory order, then failures and counts. Deterministic for a fixed block order.
void merge_block(Accum& total, const Accum& block, std::size_t n_cells);

/// The per-observable statistics of the totals (count, mean, variance, min, max, quantiles,
/// variance slope). Quantiles are computed in parallel in `arena`; each value depends only on
/// its own sketch.
std::vector<SeriesStats> series_statistics(Accum& total, const std::vector<std::string>& names,
                                           const std::vector<double>& sample_times, double h,
                                           tbb::task_arena& arena);

}  // namespace nhsim

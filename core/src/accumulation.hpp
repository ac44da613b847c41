// Internal: a block of trajectories' outcomes, and their merge into a choice's partial result.
// The statistics are associative (nhsim/statistics.hpp), so blocks may merge in any order.
#pragma once

#include <tbb/task_arena.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nhsim/ensemble_partial.hpp"
#include "nhsim/ensemble_result.hpp"

namespace nhsim {

/// The outcomes of one block of trajectories.
struct BlockOutcome {
  /// The samples of each successful trajectory, [trajectory * n_cells + cell].
  std::vector<double> ok_samples;
  /// The index of each successful trajectory, in the order of ok_samples' rows.
  std::vector<std::int64_t> ok_trajectories;
  std::vector<TrajectoryFailure> failures;
  std::int64_t ok = 0, failed = 0, cancelled = 0, steps = 0;
  // Per-trajectory outputs, as in ChoicePartial.
  std::vector<TrajectoryState> initial_states, final_states;
  std::vector<SampledTrajectory> sampled;
  std::vector<TrajectorySummary> summary;
  std::vector<std::int64_t> histogram_counts;
};

/// Which cells carry batch sums (nhsim/variance_growth.hpp): every observable at the sample
/// indices `samples` (batch_sample_indices()).
struct BatchLayout {
  std::vector<std::int64_t> samples;
  std::size_t n_observables = 0;
  /// ChoicePartial::batch_cells' size.
  std::size_t size() const {
    return static_cast<std::size_t>(kBatches) * samples.size() * n_observables;
  }
};

/// Empty statistics over n_cells cells, the batch cells of `batches` and histogram_cells
/// histogram counts, each cell's quantile sketch with room for `values_per_cell` exact values
/// (QuantileSketch::reserve).
ChoicePartial empty_choice_partial(std::size_t n_cells, const BatchLayout& batches,
                                   std::size_t histogram_cells, std::size_t values_per_cell);

/// Adds successful trajectory i's samples (n_cells values) to a block; `block_size` bounds the
/// block's trajectories (for the one reservation of ok_samples).
void add_successful(BlockOutcome& block, std::int64_t i, const std::vector<double>& samples,
                    std::int64_t block_size);

/// Appends `from`, the outcome of trajectories that all come after those of `into`, to `into`
/// (the lane path records each lane apart, then appends them in index order).
void append_outcome(BlockOutcome& into, BlockOutcome&& from);

/// Locks over contiguous ranges of a choice's cells, so that blocks add their samples to
/// different ranges at the same time (the statistics are associative: the order in which blocks
/// add to a cell does not change its bits).
class CellStripes {
 public:
  /// Cells per stripe: a few hundred kB of CellStats, each block's samples of them adjacent.
  static constexpr std::size_t kCells = 64;
  explicit CellStripes(std::size_t n_cells)
      : n_cells_(n_cells), locks_((n_cells + kCells - 1) / kCells) {}
  std::size_t size() const { return locks_.size(); }
  std::size_t n_cells() const { return n_cells_; }
  std::mutex& lock(std::size_t stripe) { return locks_[stripe]; }

 private:
  std::size_t n_cells_;
  std::vector<std::mutex> locks_;
};

/// Adds a block's samples to the cells of `into`, stripe by stripe under the stripe's lock,
/// from stripe `first` on (callers start at different stripes); safe to call from several
/// threads at once for different blocks. A stripe held by another thread is done after the
/// others.
void add_block_samples(ChoicePartial& into, const BlockOutcome& block, CellStripes& stripes,
                       std::size_t first);

/// Where a choice's blocks add their samples while they run. Where each thread has at least
/// kMinTrajectoriesPerCopy trajectories and copies of the cells take at most kCopyBytes, the
/// thread in each arena slot but the first adds to cells of its own, merged into the partial by
/// finish(), so that no cell moves between cores while blocks run. Otherwise (one thread, few
/// trajectories per cell, many cells) every block adds to the partial's cells under the stripes'
/// locks. The bits are the same either way (the statistics are associative).
class BlockSampleSink {
 public:
  /// Trajectories per thread from which the copies pay for their setup and merge (measured with
  /// si_dla on 2 threads: faster at 10^4 trajectories, no change at 2000, slower at 200).
  static constexpr std::int64_t kMinTrajectoriesPerCopy = 1024;
  /// Memory the slots' copies of the cells may take (CellStats' fixed part; the sketches grow
  /// beyond it as they fill).
  static constexpr double kCopyBytes = 256.0 * 1024 * 1024;

  /// For the cells of `partial` (its batch cells laid out as `batches`), written by the blocks
  /// of `trajectories` trajectories in an arena of `concurrency` threads.
  BlockSampleSink(ChoicePartial& partial, BatchLayout batches, std::int64_t trajectories,
                  int concurrency);
  /// Adds the samples of block number `block_number` (0, 1, ... in the range); safe from several
  /// threads at once for different blocks.
  void add(const BlockOutcome& block, std::int64_t block_number);
  /// Merges the slots' copies into the partial's cells, in parallel over the cells of `arena`
  /// (after the last add()).
  void finish(tbb::task_arena& arena);

 private:
  ChoicePartial& partial_;
  BatchLayout batches_;
  std::mutex batch_lock_;  ///< over partial_.batch_cells: a block adds to them in one go
  CellStripes stripes_;
  std::vector<std::unique_ptr<std::vector<CellStats>>> slot_cells_;  ///< [slot], empty if striped
};

/// Adds a block's failures, counts and outputs to `into` (everything merge_block() adds but the
/// samples). Not thread-safe.
void merge_block_outcome(ChoicePartial& into, const BlockOutcome& block);

/// Merges `from` into `into` (same number of cells and histogram counts); failures and
/// outputs stay in index order.
void merge_choice(ChoicePartial& into, const ChoicePartial& from);

/// The growth model of observable j (of layout.n_observables) from the cells at the batch
/// sample times and the batch cells: the fit over all trajectories, and its jackknife standard
/// errors from the fits with each non-empty batch left out (nhsim/variance_growth.hpp).
VarianceGrowth variance_growth(const ChoicePartial& partial, const BatchLayout& layout,
                               std::size_t j, const std::vector<double>& sample_times);

/// The ratio of observable j's variances at the last batch sample time of two choices' partials
/// (laid out as `a_layout` and `b_layout`), with its jackknife standard error.
VarianceRatio variance_ratio(const ChoicePartial& a, const BatchLayout& a_layout,
                             const ChoicePartial& b, const BatchLayout& b_layout, std::size_t j);

/// The per-observable statistics of the cells (count, mean, variance, min, max, quantiles,
/// their standard errors and confidence intervals, the variance growth model from the batch
/// cells, the variance slope). Quantiles are computed in parallel in `arena`; each value
/// depends only on its own cell.
std::vector<SeriesStats> series_statistics(const ChoicePartial& partial,
                                           const std::vector<std::string>& names,
                                           const std::vector<double>& sample_times, double h,
                                           tbb::task_arena& arena);

}  // namespace nhsim

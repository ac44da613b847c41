// Block outcomes merged into a choice's cells, and the series statistics (accumulation.hpp).
#include "accumulation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "nhsim/tsan.hpp"
#include "outputs.hpp"

namespace nhsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool by_trajectory(const TrajectoryFailure& a, const TrajectoryFailure& b) {
  return a.trajectory < b.trajectory;
}

/// `from`'s failures merged into `into` in index order, the first kMaxListedFailures kept: the
/// first of a union are the first of its parts' first, so any merge order lists the same ones.
void append_failures(std::vector<TrajectoryFailure>& into,
                     const std::vector<TrajectoryFailure>& from) {
  const auto middle = static_cast<std::ptrdiff_t>(into.size());
  into.insert(into.end(), from.begin(), from.end());
  std::inplace_merge(into.begin(), into.begin() + middle, into.end(), by_trajectory);
  if (into.size() > kMaxListedFailures) {
    into.erase(into.begin() + static_cast<std::ptrdiff_t>(kMaxListedFailures), into.end());
  }
}

/// The per-trajectory outputs and histogram counts of `from` (a block or a partial) added to
/// `into`, each list kept in index order.
template <class Outputs>
void merge_outputs(ChoicePartial& into, const Outputs& from) {
  merge_by_trajectory(into.initial_states, from.initial_states);
  merge_by_trajectory(into.final_states, from.final_states);
  merge_by_trajectory(into.sampled, from.sampled);
  merge_by_trajectory(into.summary, from.summary);
  for (std::size_t j = 0; j < from.histogram_counts.size(); ++j) {
    into.histogram_counts[j] += from.histogram_counts[j];
  }
}

}  // namespace

ChoicePartial empty_choice_partial(std::size_t n_cells, const BatchLayout& batches,
                                   std::size_t histogram_cells, std::size_t values_per_cell) {
  ChoicePartial p;
  p.cells.resize(n_cells);
  p.batch_cells.resize(batches.size());
  for (CellStats& c : p.cells) c.sketch.reserve(values_per_cell);
  p.histogram_counts.assign(histogram_cells, 0);
  return p;
}

void add_successful(BlockOutcome& block, std::int64_t i, const std::vector<double>& samples,
                    std::int64_t block_size) {
  ++block.ok;
  if (block.ok_samples.empty()) {
    block.ok_samples.reserve(static_cast<std::size_t>(block_size) * samples.size());
    block.ok_trajectories.reserve(static_cast<std::size_t>(block_size));
  }
  block.ok_trajectories.push_back(i);
  block.ok_samples.insert(block.ok_samples.end(), samples.begin(), samples.end());
}

void append_outcome(BlockOutcome& into, BlockOutcome&& from) {
  const auto append = [](auto& a, auto& b) {
    a.insert(a.end(), std::make_move_iterator(b.begin()), std::make_move_iterator(b.end()));
  };
  append(into.ok_samples, from.ok_samples);
  append(into.ok_trajectories, from.ok_trajectories);
  append(into.failures, from.failures);
  into.ok += from.ok;
  into.failed += from.failed;
  into.cancelled += from.cancelled;
  into.steps += from.steps;
  append(into.initial_states, from.initial_states);
  append(into.final_states, from.final_states);
  append(into.sampled, from.sampled);
  append(into.summary, from.summary);
  for (std::size_t j = 0; j < from.histogram_counts.size(); ++j) {
    into.histogram_counts[j] += from.histogram_counts[j];
  }
}

namespace {

/// The block's samples of cells [begin, end) added to them.
void add_samples(std::vector<CellStats>& cells, const BlockOutcome& block, std::size_t begin,
                 std::size_t end) {
  const std::size_t n_cells = cells.size();
  const std::size_t n_ok = n_cells > 0 ? block.ok_samples.size() / n_cells : 0;
  if (n_ok == 0 || begin >= end) return;
  // A cell's values, gathered from the block's rows; the next cell's are gathered (and its
  // state fetched) before this one's are added.
  std::vector<double> values(n_ok), next(n_ok);
  const auto gather = [&](std::size_t j, std::vector<double>& into) {
    for (std::size_t m = 0; m < n_ok; ++m) into[m] = block.ok_samples[m * n_cells + j];
  };
  gather(begin, values);
  for (std::size_t j = begin; j < end; ++j) {
    if (j + 1 < end) {
      gather(j + 1, next);
      cells[j + 1].prefetch(next[0]);
    }
    cells[j].add_all(values);
    values.swap(next);
  }
}

/// The block's samples at the batch sample times added to the batch cells of their
/// trajectories' batches, batch by batch: each batch cell once, with all its values.
void add_batch_samples(std::vector<MomentSums>& batch_cells, const BatchLayout& layout,
                       const BlockOutcome& block, std::size_t n_cells) {
  const std::size_t n_obs = layout.n_observables;
  const std::size_t n_samples = layout.samples.size();
  std::vector<std::vector<std::size_t>> rows(kBatches);  // the block's rows of each batch
  for (std::size_t m = 0; m < block.ok_trajectories.size(); ++m)
    rows[static_cast<std::size_t>(block.ok_trajectories[m] % kBatches)].push_back(m);
  std::vector<double> values;
  for (std::size_t batch = 0; batch < rows.size(); ++batch) {
    const std::vector<std::size_t>& batch_rows = rows[batch];
    if (batch_rows.empty()) continue;
    values.resize(batch_rows.size());
    MomentSums* cells = batch_cells.data() + batch * n_samples * n_obs;
    const auto value = [&](std::size_t row, std::size_t c) {  // batch cell c of row `row`
      const std::size_t column = static_cast<std::size_t>(layout.samples[c / n_obs]) * n_obs;
      return block.ok_samples[row * n_cells + column + c % n_obs];
    };
    for (std::size_t c = 0; c < n_samples * n_obs; ++c) {
      if (c + 1 < n_samples * n_obs) cells[c + 1].prefetch(value(batch_rows[0], c + 1));
      for (std::size_t k = 0; k < batch_rows.size(); ++k) values[k] = value(batch_rows[k], c);
      cells[c].add_all(values);
    }
  }
}

}  // namespace

void add_block_samples(ChoicePartial& into, const BlockOutcome& block, CellStripes& stripes,
                       std::size_t first) {
  if (block.ok_samples.empty() || stripes.size() == 0) return;
  const std::size_t n = stripes.size();
  const auto add_stripe = [&](std::size_t s) {
    add_samples(into.cells, block, s * CellStripes::kCells,
                std::min(stripes.n_cells(), (s + 1) * CellStripes::kCells));
  };
  std::vector<std::size_t> busy;  // stripes another thread held when this one came by
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t s = (first + k) % n;
    std::unique_lock<std::mutex> lock(stripes.lock(s), std::try_to_lock);
    if (!lock.owns_lock()) {
      busy.push_back(s);
      continue;
    }
    add_stripe(s);
  }
  for (std::size_t s : busy) {
    const std::lock_guard<std::mutex> lock(stripes.lock(s));
    add_stripe(s);
  }
}

BlockSampleSink::BlockSampleSink(ChoicePartial& partial, BatchLayout batches,
                                 std::int64_t trajectories, int concurrency)
    : partial_(partial), batches_(std::move(batches)), stripes_(partial.cells.size()) {
  const double copies = static_cast<double>(concurrency - 1) *
                        static_cast<double>(partial.cells.size()) * sizeof(CellStats);
  if (concurrency > 1 && trajectories / concurrency >= kMinTrajectoriesPerCopy &&
      copies <= kCopyBytes)
    slot_cells_.resize(static_cast<std::size_t>(concurrency));
}

void BlockSampleSink::add(const BlockOutcome& block, std::int64_t block_number) {
  if (!block.ok_trajectories.empty() && batches_.size() > 0) {
    const std::lock_guard<std::mutex> lock(batch_lock_);
    add_batch_samples(partial_.batch_cells, batches_, block, partial_.cells.size());
  }
  if (slot_cells_.empty()) {
    // Blocks running at once start at stripes far apart (a Weyl sequence over the number).
    const double golden = 0.6180339887498949 * static_cast<double>(block_number);
    const auto first = static_cast<std::size_t>((golden - std::floor(golden)) *
                                                static_cast<double>(stripes_.size()));
    add_block_samples(partial_, block, stripes_, first);
    return;
  }
  // A slot holds one thread at a time: its cells need no lock.
  const auto slot = static_cast<std::size_t>(tbb::this_task_arena::current_thread_index());
  if (slot == 0) {
    add_samples(partial_.cells, block, 0, partial_.cells.size());
    return;
  }
  std::unique_ptr<std::vector<CellStats>>& cells = slot_cells_.at(slot);
  if (!cells) cells = std::make_unique<std::vector<CellStats>>(partial_.cells.size());
  add_samples(*cells, block, 0, cells->size());
}

void BlockSampleSink::finish(tbb::task_arena& arena) {
  std::erase(slot_cells_, nullptr);
  if (slot_cells_.empty()) return;
  tbb_handoff_release();
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, partial_.cells.size(), 64),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        tbb_handoff_acquire();
                        for (const auto& cells : slot_cells_) {
                          for (std::size_t j = r.begin(); j < r.end(); ++j)
                            partial_.cells[j].merge((*cells)[j]);
                        }
                        tbb_handoff_release();
                      });
  });
  tbb_handoff_acquire();
  slot_cells_.clear();
}

void merge_block_outcome(ChoicePartial& into, const BlockOutcome& block) {
  append_failures(into.failures, block.failures);
  into.ok += block.ok;
  into.failed += block.failed;
  into.cancelled += block.cancelled;
  into.steps += block.steps;
  merge_outputs(into, block);
}

void merge_choice(ChoicePartial& into, const ChoicePartial& from) {
  for (std::size_t j = 0; j < into.cells.size(); ++j) into.cells[j].merge(from.cells[j]);
  for (std::size_t j = 0; j < into.batch_cells.size(); ++j) {
    into.batch_cells[j].merge(from.batch_cells[j]);
  }
  append_failures(into.failures, from.failures);
  into.ok += from.ok;
  into.failed += from.failed;
  into.cancelled += from.cancelled;
  into.steps += from.steps;
  into.wall_seconds += from.wall_seconds;
  merge_outputs(into, from);
}

namespace {

/// The variance of a cell's values without those of one batch (a subset of them): the
/// jackknife's leave-one-batch-out value; NaN where fewer than two values remain (the variance
/// is undefined there, and a leave-out value of 0 would make a standard error of 0).
double variance_without(const CellStats& total, const MomentSums& batch) {
  MomentSums rest{total.n, total.sum, total.sum_sq};
  rest.remove(batch);
  return rest.n < 2 ? kNaN : rest.variance();
}

}  // namespace

VarianceGrowth variance_growth(const ChoicePartial& partial, const BatchLayout& layout,
                               std::size_t j, const std::vector<double>& sample_times) {
  const std::size_t n_obs = layout.n_observables;
  const std::size_t nf = layout.samples.size();
  VarianceGrowth g;
  std::vector<double> t(nf), v(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    const auto k = static_cast<std::size_t>(layout.samples[f]);
    t[f] = sample_times[k];
    v[f] = partial.cells[k * n_obs + j].variance();
  }
  if (nf == 0 || partial.cells[static_cast<std::size_t>(layout.samples[0]) * n_obs + j].n < 2) {
    return g;
  }
  g.samples = static_cast<std::int64_t>(nf);
  g.t_min = t.front();
  g.t_max = t.back();
  const GrowthEstimate all = estimate_growth(t, v);
  g.a = all.a;
  g.b = all.b;
  g.exponent = all.exponent;
  std::vector<double> a_out, b_out, k_out;
  for (std::size_t batch = 0; batch < static_cast<std::size_t>(kBatches); ++batch) {
    const MomentSums* cells = partial.batch_cells.data() + batch * nf * n_obs;
    if (cells[j].n == 0) continue;
    for (std::size_t f = 0; f < nf; ++f) {
      const CellStats& c = partial.cells[static_cast<std::size_t>(layout.samples[f]) * n_obs + j];
      v[f] = variance_without(c, cells[f * n_obs + j]);
    }
    const GrowthEstimate without = estimate_growth(t, v);
    a_out.push_back(without.a);
    b_out.push_back(without.b);
    k_out.push_back(without.exponent);
  }
  g.batches = static_cast<std::int64_t>(b_out.size());
  g.a_stderr = jackknife_stderr(a_out);
  g.b_stderr = jackknife_stderr(b_out);
  g.exponent_stderr = std::isnan(g.exponent) ? kNaN : jackknife_stderr(k_out);
  const JackknifeInterval a = jackknife_interval(g.a, a_out);
  const JackknifeInterval b = jackknife_interval(g.b, b_out);
  const JackknifeInterval k = jackknife_interval(g.exponent, k_out);
  g.a_lower = a.lower;
  g.a_upper = a.upper;
  g.b_lower = b.lower;
  g.b_upper = b.upper;
  g.exponent_lower = k.lower;
  g.exponent_upper = k.upper;
  return g;
}

namespace {

/// The cell of observable j at the last batch sample time, and its batch cells' stride.
struct LastBatchSample {
  const CellStats* total = nullptr;
  const MomentSums* batch0 = nullptr;  ///< batch 0's cell; batch k's is k * stride further
  std::size_t stride = 0;
};

LastBatchSample last_batch_sample(const ChoicePartial& p, const BatchLayout& layout,
                                  std::size_t j) {
  const std::size_t n_obs = layout.n_observables, nf = layout.samples.size();
  if (nf == 0 || p.batch_cells.size() != layout.size()) return {};
  const auto k = static_cast<std::size_t>(layout.samples.back());
  return {&p.cells[k * n_obs + j], p.batch_cells.data() + (nf - 1) * n_obs + j, nf * n_obs};
}

}  // namespace

VarianceRatio variance_ratio(const ChoicePartial& a, const BatchLayout& a_layout,
                             const ChoicePartial& b, const BatchLayout& b_layout, std::size_t j) {
  VarianceRatio r;
  const LastBatchSample x = last_batch_sample(a, a_layout, j);
  const LastBatchSample y = last_batch_sample(b, b_layout, j);
  if (x.total == nullptr || y.total == nullptr) return r;
  const auto ratio = [](double u, double v) { return u > 0.0 && v > 0.0 ? u / v : kNaN; };
  r.ratio = ratio(x.total->variance(), y.total->variance());
  std::vector<double> leave_out;
  for (std::size_t batch = 0; batch < static_cast<std::size_t>(kBatches); ++batch) {
    const MomentSums& bx = x.batch0[batch * x.stride];
    const MomentSums& by = y.batch0[batch * y.stride];
    if (bx.n == 0 && by.n == 0) continue;
    leave_out.push_back(ratio(variance_without(*x.total, bx), variance_without(*y.total, by)));
  }
  r.batches = static_cast<std::int64_t>(leave_out.size());
  r.ratio_stderr = std::isnan(r.ratio) ? kNaN : jackknife_stderr(leave_out);
  const JackknifeInterval i = jackknife_interval(r.ratio, leave_out);
  r.ratio_lower = i.lower;
  r.ratio_upper = i.upper;
  return r;
}

namespace {

/// The 95 % confidence interval of the p-quantile of cell c, into lower and upper.
void quantile_interval(const CellStats& c, double p, double& lower, double& upper) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (c.n == 0 || c.sketch.non_finite() > 0) {
    lower = upper = kNaN;
    return;
  }
  const QuantileRanks r = quantile_interval_ranks(c.n, p);
  const bool has_lower = r.lower >= 0, has_upper = r.upper < c.n;
  std::int64_t ranks[2] = {has_lower ? r.lower : 0, has_upper ? r.upper : c.n - 1};
  double x[2];
  c.sketch.order_statistics(ranks, x);
  if (c.sketch.bucketed()) {  // a bucket's value is within relative error alpha of its values
    constexpr double alpha = QuantileSketch::kRelativeAccuracy;
    x[0] = std::max(c.min, x[0] < 0.0 ? x[0] / (1.0 - alpha) : x[0] / (1.0 + alpha));
    x[1] = std::min(c.max, x[1] < 0.0 ? x[1] / (1.0 + alpha) : x[1] / (1.0 - alpha));
  }
  lower = has_lower ? x[0] : -kInf;
  upper = has_upper ? x[1] : kInf;
}

}  // namespace

std::vector<SeriesStats> series_statistics(const ChoicePartial& partial,
                                           const std::vector<std::string>& names,
                                           const std::vector<double>& sample_times, double h,
                                           tbb::task_arena& arena) {
  const std::size_t n_obs = names.size();
  const std::size_t ns = sample_times.size();
  const BatchLayout layout{batch_sample_indices(sample_times), n_obs};
  std::vector<SeriesStats> out;
  for (std::size_t j = 0; j < n_obs; ++j) {
    SeriesStats s;
    s.observable = names[j];
    for (auto* v : {&s.mean, &s.variance, &s.min, &s.max, &s.q05, &s.q50, &s.q95, &s.mean_stderr,
                    &s.variance_stderr, &s.variance_lower, &s.variance_upper, &s.q05_lower,
                    &s.q05_upper, &s.q50_lower, &s.q50_upper, &s.q95_lower, &s.q95_upper})
      v->resize(ns);
    s.count.resize(ns);
    // Independent per sample (the exact variance and the quantiles cost the most): in parallel.
    // Each body is a hand-off of oneTBB's, stated for ThreadSanitizer (tsan.hpp).
    tbb_handoff_release();
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ns, 64),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          tbb_handoff_acquire();
                          static constexpr double kP[3] = {0.05, 0.5, 0.95};
                          double q[3];
                          for (std::size_t k = r.begin(); k < r.end(); ++k) {
                            const CellStats& c = partial.cells[k * n_obs + j];
                            s.count[k] = c.n;
                            s.mean[k] = c.mean();
                            s.variance[k] = c.variance();
                            s.mean_stderr[k] = c.mean_stderr();
                            s.variance_stderr[k] = c.variance_stderr();
                            c.variance_interval(s.variance_lower[k], s.variance_upper[k]);
                            s.min[k] = c.n > 0 ? c.min : kNaN;
                            s.max[k] = c.n > 0 ? c.max : kNaN;
                            c.sketch.quantiles(kP, q);
                            s.q05[k] = q[0];
                            s.q50[k] = q[1];
                            s.q95[k] = q[2];
                            quantile_interval(c, kP[0], s.q05_lower[k], s.q05_upper[k]);
                            quantile_interval(c, kP[1], s.q50_lower[k], s.q50_upper[k]);
                            quantile_interval(c, kP[2], s.q95_lower[k], s.q95_upper[k]);
                          }
                          tbb_handoff_release();
                        });
    });
    tbb_handoff_acquire();
    if (partial.batch_cells.size() == layout.size()) {
      s.variance_growth = variance_growth(partial, layout, j, sample_times);
    }
    const SlopeFit fit = fit_slope_through_origin(sample_times, s.variance, s.count);
    s.variance_slope = fit.slope;
    s.variance_slope_over_h4 = s.variance_slope / (h * h * h * h);
    s.variance_slope_stderr = fit.standard_error;
    s.variance_fit_samples = fit.samples;
    s.variance_fit_t_min = fit.t_min;
    s.variance_fit_t_max = fit.t_max;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace nhsim

// Statistics of blocks of trajectories and their in-order merge (accumulation.hpp).
#include "accumulation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <limits>

namespace nhsim {

Accum block_accum(std::size_t n_cells) {
  Accum a;
  a.stats.assign(n_cells, RunningStats{});
  return a;
}

Accum total_accum(std::size_t n_cells, std::int64_t n_traj) {
  Accum a;
  a.stats.assign(n_cells, RunningStats{});
  a.quantiles.assign(n_cells, QuantileSketch{});
  for (auto& qs : a.quantiles) qs.reserve(static_cast<std::size_t>(n_traj));
  return a;
}

void add_successful(Accum& block, const std::vector<double>& samples, std::int64_t block_size) {
  ++block.ok;
  for (std::size_t j = 0; j < samples.size(); ++j) block.stats[j].add(samples[j]);
  if (block.ok_samples.empty()) {
    block.ok_samples.reserve(static_cast<std::size_t>(block_size) * samples.size());
  }
  block.ok_samples.insert(block.ok_samples.end(), samples.begin(), samples.end());
}

void merge_block(Accum& total, const Accum& block, std::size_t n_cells) {
  for (std::size_t j = 0; j < block.stats.size(); ++j) total.stats[j].merge(block.stats[j]);
  const std::size_t n_ok = block.ok_samples.size() / n_cells;
  // Each cell's sketch gets its values in trajectory order: deterministic. (Serial: a nested
  // parallel_for here cost more than it saved.)
  for (std::size_t j = 0; j < n_cells && n_ok > 0; ++j) {
    for (std::size_t m = 0; m < n_ok; ++m) {
      total.quantiles[j].add(block.ok_samples[m * n_cells + j]);
    }
  }
  total.failures.insert(total.failures.end(), block.failures.begin(), block.failures.end());
  total.ok += block.ok;
  total.failed += block.failed;
  total.cancelled += block.cancelled;
  total.steps += block.steps;
}

std::vector<SeriesStats> series_statistics(Accum& total, const std::vector<std::string>& names,
                                           const std::vector<double>& sample_times, double h,
                                           tbb::task_arena& arena) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n_obs = names.size();
  const std::size_t ns = sample_times.size();
  std::vector<SeriesStats> out;
  for (std::size_t j = 0; j < n_obs; ++j) {
    SeriesStats s;
    s.observable = names[j];
    s.count.resize(ns);
    s.mean.resize(ns);
    s.variance.resize(ns);
    s.min.resize(ns);
    s.max.resize(ns);
    s.q05.resize(ns);
    s.q50.resize(ns);
    s.q95.resize(ns);
    for (std::size_t k = 0; k < ns; ++k) {
      const RunningStats& r = total.stats[k * n_obs + j];
      s.count[k] = r.n;
      s.mean[k] = r.n > 0 ? r.mean : kNaN;
      s.variance[k] = r.variance();
      s.min[k] = r.n > 0 ? r.min : kNaN;
      s.max[k] = r.n > 0 ? r.max : kNaN;
    }
    // Quantiles (NaN where count = 0): independent per sample, so in parallel.
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ns, 64),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          static constexpr double kP[3] = {0.05, 0.5, 0.95};
                          double q[3];
                          for (std::size_t k = r.begin(); k < r.end(); ++k) {
                            total.quantiles[k * n_obs + j].quantiles(kP, q);
                            s.q05[k] = q[0];
                            s.q50[k] = q[1];
                            s.q95[k] = q[2];
                          }
                        });
    });
    s.variance_slope = slope_through_origin(sample_times, s.variance, s.count);
    s.variance_slope_over_h4 = s.variance_slope / (h * h * h * h);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace nhsim

// Merging partial results (nhsim/ensemble.hpp, docs/design.md "Ensemble semantics"): the checks
// that they belong together, the union of their ranges and the merge of their statistics.
#include "partial_result.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "accumulation.hpp"

namespace nhsim {
namespace {

std::string show(const TrajectoryRange& r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

/// The sorted union of two sorted, disjoint range lists, adjacent ranges joined; throws
/// PartialMismatch if a range of one overlaps a range of the other.
std::vector<TrajectoryRange> union_of(const std::vector<TrajectoryRange>& a,
                                      const std::vector<TrajectoryRange>& b) {
  std::vector<TrajectoryRange> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(),
            [](const TrajectoryRange& x, const TrajectoryRange& y) { return x.begin < y.begin; });
  std::vector<TrajectoryRange> out;
  for (const TrajectoryRange& r : all) {
    if (!out.empty() && r.begin < out.back().end) {
      throw PartialMismatch("partial results overlap: trajectories " + show(out.back()) + " and " +
                            show(r));
    }
    if (!out.empty() && r.begin == out.back().end) {
      out.back().end = r.end;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

TrajectoryRange shard_range(std::int64_t n_trajectories, std::int64_t shard, std::int64_t shards) {
  if (shards < 1 || shard < 0 || shard >= shards) {
    throw std::invalid_argument("shard: " + std::to_string(shard) + "/" + std::to_string(shards) +
                                " is not I/N with 0 <= I < N");
  }
  if (n_trajectories < 0) throw std::invalid_argument("shard: negative trajectory count");
  // shard n / shards without overflow: n < 2^63 and shards < 2^63, so use 128 bits.
  __extension__ typedef __int128 I128;  // -Wpedantic needs __extension__
  const auto bound = [&](std::int64_t k) {
    return static_cast<std::int64_t>(static_cast<I128>(k) * n_trajectories / shards);
  };
  return {bound(shard), bound(shard + 1)};
}

void merge_partial(PartialResult& into, const PartialResult& from) {
  if (into.spec_hash != from.spec_hash) {
    throw PartialMismatch("partial results of different specs (spec hashes " + into.spec_hash +
                          " and " + from.spec_hash + ")");
  }
  if (into.n_trajectories != from.n_trajectories) {
    throw PartialMismatch("partial results for " + std::to_string(into.n_trajectories) + " and " +
                          std::to_string(from.n_trajectories) + " trajectories");
  }
  if (into.choices.size() != from.choices.size()) {
    throw PartialMismatch("partial results with " + std::to_string(into.choices.size()) + " and " +
                          std::to_string(from.choices.size()) + " integrator choices");
  }
  for (std::size_t ci = 0; ci < into.choices.size(); ++ci) {
    if (into.choices[ci].cells.size() != from.choices[ci].cells.size()) {
      throw PartialMismatch("partial results: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(into.choices[ci].cells.size()) + " and " +
                            std::to_string(from.choices[ci].cells.size()) + " statistics cells");
    }
    if (into.choices[ci].batch_cells.size() != from.choices[ci].batch_cells.size()) {
      throw PartialMismatch("partial results: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(into.choices[ci].batch_cells.size()) + " and " +
                            std::to_string(from.choices[ci].batch_cells.size()) + " batch cells");
    }
    if (into.choices[ci].histogram_counts.size() != from.choices[ci].histogram_counts.size()) {
      throw PartialMismatch("partial results: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(into.choices[ci].histogram_counts.size()) + " and " +
                            std::to_string(from.choices[ci].histogram_counts.size()) +
                            " histogram counts");
    }
  }
  std::vector<TrajectoryRange> ranges = union_of(into.ranges, from.ranges);
  for (std::size_t ci = 0; ci < into.choices.size(); ++ci) {
    merge_choice(into.choices[ci], from.choices[ci]);
  }
  into.ranges = std::move(ranges);
}

void check_complete(const PartialResult& partial, std::int64_t n_trajectories) {
  if (partial.n_trajectories != n_trajectories) {
    throw PartialMismatch("partial result is for " + std::to_string(partial.n_trajectories) +
                          " trajectories, the spec has " + std::to_string(n_trajectories));
  }
  // The gaps between the sorted, disjoint ranges, and after the last.
  std::string missing;
  std::int64_t covered = 0;
  const auto gap = [&](std::int64_t end) {
    if (end > covered) missing += (missing.empty() ? "" : ", ") + show({covered, end});
  };
  for (const TrajectoryRange& r : partial.ranges) {
    gap(r.begin);
    covered = r.end;
  }
  gap(n_trajectories);
  if (!missing.empty()) {
    throw PartialMismatch("partial result is missing trajectories " + missing + " of " +
                          std::to_string(n_trajectories));
  }
}

}  // namespace nhsim

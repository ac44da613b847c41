// Mergeable quantile sketch whose state depends only on the multiset of values added.
//
// Two regimes, chosen by the count n:
//  * n <= kExactCapacity (400): the values themselves; quantile(p) is the interpolated order
//    statistic of the sorted values x_0 <= ... <= x_{n-1} (Hyndman & Fan type 7, the default of
//    R and NumPy): with h = p (n - 1) and j = floor(h), x_j + (h - j) (x_{j+1} - x_j).
//  * n > kExactCapacity: logarithmic bucket counts (DDSketch: C. Masson, J. E. Rim, H. K. Lee,
//    "DDSketch: a fast and fully-mergeable quantile sketch with relative-error guarantees",
//    PVLDB 12(12), 2019). A value x != 0 falls in bucket i = ceil(log_gamma |x|), gamma =
//    (1 + alpha) / (1 - alpha), one store per sign, zeros counted apart. quantile(p) returns the
//    bucket of the order statistic x_j, j = floor(p (n - 1)), as 2 gamma^i / (gamma + 1), which
//    is within relative error alpha = kRelativeAccuracy (1 %) of x_j, clamped to [min, max].
//    A store keeps at most kMaxBuckets (2048) buckets, i.e. magnitudes over 17.8 decades below
//    its largest; smaller magnitudes are counted in its lowest bucket (their quantile is then
//    only bounded by that bucket's value).
// Merging adds counts (or concatenates values), so any order and grouping of add() and
// merge() calls gives the same state and bit-identical quantiles (docs/design.md "Ensemble
// semantics"). -0.0 is stored as +0.0. Memory: 8 bytes per value up to 400 values, then 8
// bytes per bucket between the smallest and largest magnitude seen (about 115 per decade),
// independent of n.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace nhsim {

class QuantileSketch {
 public:
  /// The largest count for which the values themselves are kept and quantiles are exact.
  static constexpr std::size_t kExactCapacity = 400;
  /// alpha: relative accuracy of a quantile once bucketed.
  static constexpr double kRelativeAccuracy = 0.01;
  /// Buckets per sign; lower magnitudes collapse into the lowest.
  static constexpr int kMaxBuckets = 2048;

  /// Bucket counts of one sign: counts[k] values in bucket offset + k.
  struct Store {
    int offset = 0;
    std::vector<std::int64_t> counts;
    /// Largest bucket index ever added (the collapse threshold follows it); meaningful when
    /// counts is non-empty.
    int highest = 0;
  };

  /// Adds one value. A non-finite value (NaN, +-inf) makes every quantile NaN (as it makes the
  /// mean non-finite). Allocates while the sketch grows (not in a step loop: the ensemble adds
  /// values when it merges a block).
  void add(double x);

  /// add(x) for each x of `xs`, in order: the same state. Once bucketed, the bucket indices of
  /// a batch are found first and the counts incremented after, so that the counts' cache misses
  /// overlap instead of waiting behind each value's logarithm.
  void add_all(std::span<const double> xs);

  /// Room for `n` more values, if they would all stay exact (count() + n <= kExactCapacity): a
  /// hint from a caller who knows how many values will come; the state is unchanged.
  void reserve(std::size_t n);

  /// *this becomes the sketch of both sets of values.
  void merge(const QuantileSketch& o);

  /// Number of values added (non-finite ones included).
  std::int64_t count() const { return n_; }

  /// Estimated p-quantile, p in [0, 1]: exact type-7 while count() <= kExactCapacity, within
  /// relative error kRelativeAccuracy of x_floor(p (n - 1)) beyond. quantile(0) = min and
  /// quantile(1) = max exactly. NaN for an empty sketch or one with a non-finite value.
  /// Throws std::invalid_argument for p outside [0, 1] or NaN.
  double quantile(double p) const;

  /// out[i] = quantile(p[i]), bit-identical to one call each. Throws std::invalid_argument if
  /// out.size() != p.size() or some p[i] is outside [0, 1].
  void quantiles(std::span<const double> p, std::span<double> out) const;

  /// out[i] = the order statistic x_ranks[i] (0-based, ranks[i] in [0, count())): exact while
  /// count() <= kExactCapacity; beyond, its bucket's value (within relative error
  /// kRelativeAccuracy of it), clamped to [min, max]. NaN for an empty sketch or one with a
  /// non-finite value. Throws std::invalid_argument if out.size() != ranks.size() or a rank is
  /// out of range.
  void order_statistics(std::span<const std::int64_t> ranks, std::span<double> out) const;

  // The state, for serialisation (canonical: the same values give the same state).
  /// The exact values in ascending order (empty once bucketed).
  std::vector<double> exact_values() const;
  bool bucketed() const { return bucketed_; }
  const Store& positive() const { return pos_; }
  const Store& negative() const { return neg_; }
  std::int64_t zeros() const { return zeros_; }
  std::int64_t non_finite() const { return non_finite_; }
  double min() const { return min_; }
  double max() const { return max_; }

  /// The sketch with this state (inverse of the accessors above). Throws std::invalid_argument
  /// when the parts are inconsistent (counts not adding up to n, negative counts, exact values
  /// beyond kExactCapacity, a store wider than kMaxBuckets).
  static QuantileSketch from_state(std::int64_t n, std::vector<double> exact_values, bool bucketed,
                                   Store positive, Store negative, std::int64_t zeros,
                                   std::int64_t non_finite, double min, double max);

 private:
  void bucket_all_values();
  void add_to_buckets(double x, std::int64_t count);
  double bucketed_quantile(double p) const;
  double bucketed_order_statistic(std::int64_t j) const;

  std::int64_t n_ = 0;
  std::int64_t non_finite_ = 0;
  bool bucketed_ = false;
  std::vector<double> values_;                            ///< exact regime, in arrival order
  Store pos_, neg_;                                       ///< |x| buckets for x > 0 and x < 0
  std::int64_t zeros_ = 0;                                ///< exact zeros, bucketed regime
  double min_ = std::numeric_limits<double>::infinity();  ///< of the finite values
  double max_ = -std::numeric_limits<double>::infinity();
};

/// The 0-based ranks of the order statistics x_lower <= x_upper of n values that bound the
/// p-quantile with at least 95 % confidence for any continuous distribution: X, the number of
/// values below the quantile, is Binomial(n, p), and each tail P(X <= lower) and
/// P(X >= upper + 1) is at most 2.5 % (exact binomial for n <= QuantileSketch::kExactCapacity,
/// the normal approximation with the same rule beyond). lower = -1 (no lower bound) or
/// upper = n (no upper bound) where n values cannot give a tail that small (e.g. p = 0.05 and
/// n < 72). Source: H. A. David, H. N. Nagaraja, "Order Statistics", 3rd ed., Wiley 2003, §7.1.
struct QuantileRanks {
  std::int64_t lower = -1;
  std::int64_t upper = 0;
};
QuantileRanks quantile_interval_ranks(std::int64_t n, double p);

}  // namespace nhsim

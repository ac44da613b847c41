// Associative statistics of one observable at one sample time (a "cell"): the state of any set
// of values merges with any other set's, in any order and grouping, to the same bits
// (docs/design.md "Ensemble semantics"), so ensemble results do not depend on threads, shards or
// merge order.
//
// Accuracy: count, min and max are exact. The sums of x and x^2 are exact (ExactSum; x^2 as
// the exact pair hi + lo = fl(x^2) + fma(x, x, -fl(x^2)), exact unless x^2 underflows, |x| <
// 1e-154, or overflows); the mean is the exact sum rounded, divided by n; the variance is
// n S2 - S1^2 evaluated exactly in integers, rounded, divided by n (n - 1): each within a few
// ulps, however large the mean is against the spread. The sums of x^3 and x^4 are exact sums
// of the rounded powers fl(x fl(x^2)) and fl(fl(x^2)^2): they serve the standard error of the
// variance, which needs two correct digits, not sixteen (variance_stderr() says when the
// rounding could cost them). Quantiles: QuantileSketch.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "nhsim/exact_sum.hpp"
#include "nhsim/quantiles.hpp"

namespace nhsim {

/// The exact unbiased variance (n S2 - S1^2) / (n (n - 1)) of n values with exact sums S1 of x
/// and S2 of x^2 (as CellStats::variance()); 0 for n < 2 or a negative numerator (the sums of
/// a set minus a subset that held the same values), NaN if a sum is not finite.
double exact_variance(std::int64_t n, const ExactSum& s1, const ExactSum& s2);

/// Count and exact sums of x and x^2: the state of a batch's values at one sample time, from
/// which the batch-means and jackknife standard errors of derived statistics are computed
/// (GrowthFit, series_statistics). Merges like CellStats, to the same bits in any order.
struct MomentSums {
  std::int64_t n = 0;
  ExactSum sum;     ///< sum of x
  ExactSum sum_sq;  ///< sum of x^2, exactly (the pair fl(x^2) + fma(x, x, -fl(x^2)))

  void add(double x);
  /// add(x) for each x of `xs`: the same sums (ExactSum::add_all).
  void add_all(std::span<const double> xs);
  /// As CellStats::prefetch: the state add_all() of values near x updates first.
  void prefetch(double x) const;
  void merge(const MomentSums& o);
  /// *this becomes the sums of its values without those of `o` (a subset of them).
  void remove(const MomentSums& o);
  /// exact_variance(n, sum, sum_sq).
  double variance() const { return exact_variance(n, sum, sum_sq); }
};

struct CellStats {
  std::int64_t n = 0;
  ExactSum sum;                                           ///< sum of x
  ExactSum sum_sq;                                        ///< sum of x^2
  ExactSum sum_cube;                                      ///< sum of fl(x fl(x^2))
  ExactSum sum_fourth;                                    ///< sum of fl(fl(x^2)^2)
  double min = std::numeric_limits<double>::infinity();   ///< -0.0 counted as +0.0
  double max = -std::numeric_limits<double>::infinity();  ///< NaN never enters
  QuantileSketch sketch;

  void add(double x);
  /// add(x) for each x of `xs`: the same state (QuantileSketch::add_all).
  void add_all(std::span<const double> xs);
  /// Asks the cache for the state that add_all() of values near x updates first (the count,
  /// min and max, and the exact sums' limbs for x..x^4): called a cell ahead, so that the
  /// fetches overlap the current cell's work. No effect on the state.
  void prefetch(double x) const;
  /// *this becomes the statistics of both sets of values.
  void merge(const CellStats& o);
  /// sum / n; NaN for n = 0, non-finite if a non-finite value was added.
  double mean() const;
  /// Unbiased sample variance (n S2 - S1^2) / (n (n - 1)), exact before the last two roundings;
  /// 0 for n < 2, NaN if a non-finite value was added.
  double variance() const;
  /// Standard error of the mean, sqrt(variance / n); NaN for n < 2.
  double mean_stderr() const;
  /// Standard error of the unbiased variance s^2: sqrt((m4 - s^4 (n - 3) / (n - 1)) / n) with m4
  /// the central fourth moment sum((x - mean)^4) / n, from the sums of x..x^4 (the delta-method
  /// variance of s^2; e.g. 2 sigma^4 / (n - 1) for normal values). NaN for n < 4, for a
  /// non-finite value, and where the rounding of x^3 and x^4 could leave fewer than two correct
  /// digits: a relative error bound of m4 of 2^-50 (sum x^4 + 4 |mean| |sum x^3| + 6 mean^2
  /// sum x^2 + 3 n mean^4) / (n m4) above 1e-2, i.e. roughly |mean| > 1e3 standard deviations.
  double variance_stderr() const;
  /// The 95 % confidence interval [lower, upper] of the variance: Bonett's interval on the log
  /// scale ([Bonett2006]), c s^2 exp(-+ t c se) with c = n / (n - 1.96) and
  /// se = sqrt((k - (n - 3) / n) / (n - 1)), k an estimate of the kurtosis E(x - mu)^4 / sigma^4.
  /// Two small-sample choices of the literature, each measured to help on skewed energy errors
  /// (docs/statistics.md): k = G2 + 3 with G2 the bias-adjusted sample excess kurtosis (about the
  /// mean: Bonett's trimmed mean needs order statistics the sums do not keep), and t = t_{0.975,
  /// n - 1} in place of 1.96. It holds under skew and heavy tails where s^2 +- 1.96
  /// variance_stderr() does not: a low s^2 brings a low fourth moment, so the symmetric interval
  /// misses low. Observable units^2. NaN, NaN where variance_stderr() is NaN (n < 4, a non-finite
  /// value, the rounding bound); 0, 0 where the values are equal.
  void variance_interval(double& lower, double& upper) const;

 private:
  /// The central fourth moment sum((x - mean)^4) / n from the sums of x..x^4, and s^2: false
  /// (NaN) where variance_stderr() is NaN.
  bool fourth_moment(double& m4, double& s2) const;
};

/// A least-squares line through the origin, v ~ slope t, and how well the data support it.
struct SlopeFit {
  double slope = 0.0;  ///< sum(t v) / sum(t^2); 0 without samples
  /// Standard error of the slope, sqrt(sum(r^2) / ((n - 1) sum(t^2))) with residuals
  /// r = v - slope t; NaN for fewer than 2 samples.
  double standard_error = std::numeric_limits<double>::quiet_NaN();
  std::int64_t samples = 0;  ///< sample times used
  double t_min = 0.0;        ///< first and last sample time used (0 without samples)
  double t_max = 0.0;
};

/// Fits v against t through the origin over the entries with count >= 2 and t > 0 (the sample
/// times where a variance exists). All vectors have the same length.
inline SlopeFit fit_slope_through_origin(const std::vector<double>& t, const std::vector<double>& v,
                                         const std::vector<std::int64_t>& count) {
  SlopeFit fit;
  double stv = 0.0, stt = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (count[k] < 2 || t[k] <= 0.0) continue;
    stv += t[k] * v[k];
    stt += t[k] * t[k];
    if (fit.samples++ == 0) fit.t_min = t[k];
    fit.t_max = t[k];
  }
  if (!(stt > 0.0)) return fit;
  fit.slope = stv / stt;
  if (fit.samples < 2) return fit;
  double srr = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (count[k] < 2 || t[k] <= 0.0) continue;
    const double r = v[k] - fit.slope * t[k];
    srr += r * r;
  }
  fit.standard_error = std::sqrt(srr / (static_cast<double>(fit.samples - 1) * stt));
  return fit;
}

}  // namespace nhsim

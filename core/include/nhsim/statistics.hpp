// Streaming, mergeable statistics (Welford's update, Chan et al.'s pairwise merge).
// Deterministic: the same sequence of add()/merge() calls gives bit-identical results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace nhsim {

struct RunningStats {
  std::int64_t n = 0;
  double mean = 0.0;
  double m2 = 0.0;  ///< sum of squared deviations from the mean
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  /// Welford's update with one value.
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
    min = std::min(min, x);
    max = std::max(max, x);
  }

  /// Chan, Golub & LeVeque's pairwise merge: *this becomes the statistics of both samples.
  void merge(const RunningStats& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = static_cast<double>(n), nb = static_cast<double>(o.n);
    const double nt = na + nb;
    const double d = o.mean - mean;
    mean += d * (nb / nt);
    m2 += o.m2 + d * d * (na * nb / nt);
    n += o.n;
    min = std::min(min, o.min);
    max = std::max(max, o.max);
  }

  /// Unbiased sample variance; 0 for fewer than two values.
  double variance() const { return n > 1 ? m2 / static_cast<double>(n - 1) : 0.0; }
};

/// Least-squares slope of v against t through the origin, sum(t v) / sum(t^2), over the
/// entries with count >= 2 and t > 0. Returns 0 when there are none. All vectors same length.
inline double slope_through_origin(const std::vector<double>& t, const std::vector<double>& v,
                                   const std::vector<std::int64_t>& count) {
  double stv = 0.0, stt = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (count[k] < 2 || t[k] <= 0.0) continue;
    stv += t[k] * v[k];
    stt += t[k] * t[k];
  }
  return stt > 0.0 ? stv / stt : 0.0;
}

}  // namespace nhsim

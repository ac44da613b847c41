// CellStats (statistics.hpp): exact moments and the exact variance in integer arithmetic.
#include "nhsim/statistics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "nhsim/dmath.hpp"
#include "nhsim/variance_growth.hpp"
#include "target_clones.hpp"

namespace nhsim {
namespace {

/// Non-negative integers as little-endian 32-bit digits, just what the variance needs.
using Digits = std::vector<std::uint32_t>;

void trim(Digits& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}

Digits multiply(const Digits& a, const Digits& b) {
  if (a.empty() || b.empty()) return {};
  Digits out(a.size() + b.size(), 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0) continue;  // the sums' many low zero digits (below their values' ulps)
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.size(); ++j) {
      const std::uint64_t t = static_cast<std::uint64_t>(a[i]) * b[j] + out[i + j] + carry;
      out[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    for (std::size_t k = i + b.size(); carry != 0; ++k) {
      const std::uint64_t t = static_cast<std::uint64_t>(out[k]) + carry;
      out[k] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
  }
  trim(out);
  return out;
}

Digits shift_left(const Digits& a, int bits) {
  if (a.empty()) return {};
  const auto whole = static_cast<std::size_t>(bits / 32);
  const int part = bits % 32;
  Digits out(a.size() + whole + 1, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint64_t v = static_cast<std::uint64_t>(a[i]) << part;
    out[i + whole] |= static_cast<std::uint32_t>(v);
    out[i + whole + 1] |= static_cast<std::uint32_t>(v >> 32);
  }
  trim(out);
  return out;
}

/// a - b for a > b (both trimmed).
Digits subtract(const Digits& a, const Digits& b) {
  Digits out = a;
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t d = static_cast<std::int64_t>(out[i]) - borrow - (i < b.size() ? b[i] : 0);
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += std::int64_t{1} << 32;
    out[i] = static_cast<std::uint32_t>(d);
  }
  trim(out);
  return out;
}

/// a > b for trimmed a, b.
bool greater(const Digits& a, const Digits& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  for (std::size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return false;
}

/// Adds x^2 exactly, as the pair fl(x^2) + fma(x, x, -fl(x^2)); returns fl(x^2).
double add_square(ExactSum& sum_sq, double x) {
  const double hi = x * x;
  sum_sq.add(hi);
  if (std::isfinite(hi)) sum_sq.add(std::fma(x, x, -hi));
  return hi;
}

/// Adds x to s1 and x^2 to s2 (as add_square()) for every x of `chunk` (at most
/// ExactSum::kChunk values), and fl(x fl(x^2)) to *s3 and fl(fl(x^2)^2) to *s4 where given, by
/// ExactSum::add_all: the sums add() gives. False, adding nothing, when a value is non-finite or
/// |x| >= 2^500 (x^2 might overflow, and its error term must then be skipped): the caller adds
/// value by value.
/// hi_i = fl(x_i^2), lo_i = fma(x_i, x_i, -hi_i) and, with cube non-null, cube_i = fl(x_i hi_i)
/// and fourth_i = fl(hi_i^2) for i < n: correctly rounded operations, the same bits on every
/// instruction set.
NHSIM_TARGET_CLONES void powers(const double* x, std::size_t n, double* hi, double* lo,
                                double* cube, double* fourth) {
  for (std::size_t i = 0; i < n; ++i) {
    hi[i] = x[i] * x[i];
    lo[i] = std::fma(x[i], x[i], -hi[i]);
  }
  if (cube == nullptr) return;
  for (std::size_t i = 0; i < n; ++i) {
    cube[i] = x[i] * hi[i];
    fourth[i] = hi[i] * hi[i];
  }
}

bool add_power_sums(std::span<const double> chunk, ExactSum& s1, ExactSum& s2, ExactSum* s3,
                    ExactSum* s4) {
  constexpr auto kLarge = std::bit_cast<std::uint64_t>(0x1p500);
  constexpr std::size_t kChunk = ExactSum::kChunk;
  const std::size_t m = chunk.size();
  if (largest_magnitude_bits(chunk.data(), m) >= kLarge) return false;
  double hi[kChunk], lo[kChunk], cube[kChunk], fourth[kChunk];
  powers(chunk.data(), m, hi, lo, s3 != nullptr ? cube : nullptr, fourth);
  s1.add_all(chunk);
  s2.add_all({hi, m});
  s2.add_all({lo, m});
  if (s3 == nullptr) return true;
  s3->add_all({cube, m});
  s4->add_all({fourth, m});
  return true;
}

/// Count, exact sums of x..x^4, min and max of `cell` with x added (everything but the sketch).
void add_moments(CellStats& cell, double x) {
  ++cell.n;
  cell.sum.add(x);
  const double hi = add_square(cell.sum_sq, x);
  cell.sum_cube.add(x * hi);
  cell.sum_fourth.add(hi * hi);
  if (x == 0.0) x = 0.0;  // -0.0 -> +0.0: min and max must not depend on the order
  cell.min = std::min(cell.min, x);
  cell.max = std::max(cell.max, x);
}

}  // namespace

void CellStats::add(double x) {
  add_moments(*this, x);
  sketch.add(x);
}

void CellStats::add_all(std::span<const double> xs) {
  for (std::size_t i0 = 0; i0 < xs.size(); i0 += ExactSum::kChunk) {
    const std::span<const double> chunk =
        xs.subspan(i0, std::min(ExactSum::kChunk, xs.size() - i0));
    if (!add_power_sums(chunk, sum, sum_sq, &sum_cube, &sum_fourth)) {
      for (double x : chunk) add_moments(*this, x);
      continue;
    }
    n += static_cast<std::int64_t>(chunk.size());
    for (double x : chunk) {
      const double y = x == 0.0 ? 0.0 : x;  // -0.0 -> +0.0, as add()
      min = std::min(min, y);
      max = std::max(max, y);
    }
  }
  sketch.add_all(xs);
}

void CellStats::prefetch(double x) const {
  __builtin_prefetch(&n, 1);
  __builtin_prefetch(&min, 1);
  const double x2 = x * x;
  sum.prefetch(x);
  sum_sq.prefetch(x2);
  sum_sq.prefetch(x2 * 0x1p-53);  // the error terms of x^2
  sum_cube.prefetch(x * x2);
  sum_fourth.prefetch(x2 * x2);
  const auto* sketch_state = reinterpret_cast<const char*>(&sketch);
  for (std::size_t b = 0; b < sizeof(QuantileSketch); b += 64) __builtin_prefetch(sketch_state + b);
}

void CellStats::merge(const CellStats& o) {
  n += o.n;
  sum.merge(o.sum);
  sum_sq.merge(o.sum_sq);
  sum_cube.merge(o.sum_cube);
  sum_fourth.merge(o.sum_fourth);
  min = std::min(min, o.min);
  max = std::max(max, o.max);
  sketch.merge(o.sketch);
}

double CellStats::mean() const {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return sum.value() / static_cast<double>(n);
}

double CellStats::variance() const { return exact_variance(n, sum, sum_sq); }

double CellStats::mean_stderr() const {
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(variance() / static_cast<double>(n));
}

bool CellStats::fourth_moment(double& m4, double& s2) const {
  m4 = s2 = std::numeric_limits<double>::quiet_NaN();
  if (n < 4 || !sum_cube.finite() || !sum_fourth.finite()) return false;
  s2 = variance();
  if (!std::isfinite(s2)) return false;
  const auto dn = static_cast<double>(n);
  const double mean = sum.value() / dn;
  const double m2 = sum_sq.value() / dn;
  const double m3 = sum_cube.value() / dn;
  const double m4raw = sum_fourth.value() / dn;
  const double mean2 = mean * mean;
  // Central fourth moment from the raw ones: E(x - mean)^4.
  m4 = m4raw - 4.0 * mean * m3 + 6.0 * mean2 * m2 - 3.0 * mean2 * mean2;
  const double scale = m4raw + 4.0 * std::abs(mean * m3) + 6.0 * mean2 * m2 + 3.0 * mean2 * mean2;
  if (!(m4 > 0.0) || std::ldexp(scale, -50) > 1e-2 * m4) {
    m4 = s2 == 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    return s2 == 0.0;
  }
  return true;
}

double CellStats::variance_stderr() const {
  double m4 = 0.0, s2 = 0.0;
  if (!fourth_moment(m4, s2)) return std::numeric_limits<double>::quiet_NaN();
  const auto dn = static_cast<double>(n);
  const double v = (m4 - s2 * s2 * (dn - 3.0) / (dn - 1.0)) / dn;
  return v > 0.0 ? std::sqrt(v) : 0.0;
}

void CellStats::variance_interval(double& lower, double& upper) const {
  double m4 = 0.0, s2 = 0.0;
  if (!fourth_moment(m4, s2)) {
    lower = upper = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  if (s2 == 0.0) {
    lower = upper = 0.0;
    return;
  }
  constexpr double kZ = 1.959963984540054;  // the normal distribution's 97.5 % quantile
  const auto dn = static_cast<double>(n);
  const double m2 = s2 * (dn - 1.0) / dn;  // sum (x - mean)^2 / n
  // G2, the sample excess kurtosis adjusted for bias (unbiased for normal values), plus 3.
  const double g2 = m4 / (m2 * m2) - 3.0;
  const double kurtosis = ((dn + 1.0) * g2 + 6.0) * (dn - 1.0) / ((dn - 2.0) * (dn - 3.0)) + 3.0;
  const double c = dn / (dn - kZ);
  const double se = c * std::sqrt(std::max(kurtosis - (dn - 3.0) / dn, 0.0) / (dn - 1.0));
  const double t = student_t_975(dn - 1.0);
  lower = c * s2 * dmath::exp(-t * se);
  upper = c * s2 * dmath::exp(t * se);
}

double exact_variance(std::int64_t n, const ExactSum& s1, const ExactSum& s2) {
  if (n < 2) return 0.0;
  if (!s1.finite() || !s2.finite()) return std::numeric_limits<double>::quiet_NaN();
  // S1 = K1 2^-1074, S2 = K2 2^-1074: n S2 - S1^2 = (n K2 2^1074 - K1^2) 2^-2148.
  Digits k1, k2;
  bool negative = false;
  s1.magnitude(k1, negative);
  s2.magnitude(k2, negative);
  if (negative) return 0.0;  // K2 >= 0 for a sum of exact squares
  const auto un = static_cast<std::uint64_t>(n);
  const Digits n_digits{static_cast<std::uint32_t>(un), static_cast<std::uint32_t>(un >> 32)};
  Digits a = multiply(k2, n_digits);
  a = shift_left(a, -ExactSum::kLowestExponent);
  const Digits b = multiply(k1, k1);
  if (!greater(a, b)) return 0.0;  // equal values (or x^2 rounded below 1e-308)
  const double m2_times_n = round_to_double(subtract(a, b), 2L * ExactSum::kLowestExponent);
  return m2_times_n / static_cast<double>(n) / static_cast<double>(n - 1);
}

void MomentSums::add(double x) {
  ++n;
  sum.add(x);
  add_square(sum_sq, x);
}

void MomentSums::prefetch(double x) const {
  __builtin_prefetch(&n, 1);
  const double x2 = x * x;
  sum.prefetch(x);
  sum_sq.prefetch(x2);
  sum_sq.prefetch(x2 * 0x1p-53);
}

void MomentSums::add_all(std::span<const double> xs) {
  for (std::size_t i0 = 0; i0 < xs.size(); i0 += ExactSum::kChunk) {
    const std::span<const double> chunk =
        xs.subspan(i0, std::min(ExactSum::kChunk, xs.size() - i0));
    if (add_power_sums(chunk, sum, sum_sq, nullptr, nullptr)) {
      n += static_cast<std::int64_t>(chunk.size());
    } else {
      for (double x : chunk) add(x);
    }
  }
}

void MomentSums::merge(const MomentSums& o) {
  n += o.n;
  sum.merge(o.sum);
  sum_sq.merge(o.sum_sq);
}

void MomentSums::remove(const MomentSums& o) {
  n -= o.n;
  sum.merge_negated(o.sum);
  sum_sq.merge_negated(o.sum_sq);
}

}  // namespace nhsim

// Batch sample times, the variance growth model and the jackknife (nhsim/variance_growth.hpp).
#include "nhsim/variance_growth.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "nhsim/dmath.hpp"

namespace nhsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Least squares y ~ c0 + c1 x over the points; {NaN, NaN} for fewer than two distinct x.
std::array<double, 2> fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  if (n < 2) return {kNaN, kNaN};
  double mx = 0.0, my = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    mx += x[k];
    my += y[k];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    sxx += (x[k] - mx) * (x[k] - mx);
    sxy += (x[k] - mx) * (y[k] - my);
  }
  if (!(sxx > 0.0)) return {kNaN, kNaN};
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace

std::vector<std::int64_t> batch_sample_indices(const std::vector<double>& sample_times) {
  std::vector<std::int64_t> out;
  if (sample_times.size() < 2) return out;
  const double t_start = kGrowthFitStart * sample_times.back();
  std::int64_t first = 0;
  const auto n = static_cast<std::int64_t>(sample_times.size());
  while (first < n && (sample_times[static_cast<std::size_t>(first)] < t_start ||
                       sample_times[static_cast<std::size_t>(first)] <= 0.0))
    ++first;
  const std::int64_t m = n - first;
  if (m <= kMaxBatchSamples) {
    for (std::int64_t k = first; k < n; ++k) out.push_back(k);
    return out;
  }
  // kMaxBatchSamples indices evenly spread over [first, n - 1], rounded to nearest.
  const std::int64_t gaps = kMaxBatchSamples - 1;
  for (std::int64_t j = 0; j < kMaxBatchSamples; ++j) {
    out.push_back(first + (j * (m - 1) + gaps / 2) / gaps);
  }
  return out;
}

GrowthEstimate estimate_growth(const std::vector<double>& t, const std::vector<double>& v) {
  const std::array<double, 2> affine = fit_line(t, v);
  std::vector<double> log_t, log_v;
  bool positive = t.size() >= 2;
  for (std::size_t k = 0; k < t.size() && positive; ++k) {
    positive = t[k] > 0.0 && v[k] > 0.0;
    log_t.push_back(dmath::log(t[k]));
    log_v.push_back(dmath::log(v[k]));
  }
  const double exponent = positive ? fit_line(log_t, log_v)[1] : kNaN;
  return {affine[0], affine[1], exponent};
}

namespace {

/// The non-NaN leave-out values: how many, and the sums of their deviations from their mean
/// to the powers 2, 3, 4.
struct LeaveOutSums {
  std::int64_t g = 0;
  double s2 = 0.0, s3 = 0.0, s4 = 0.0;
};

LeaveOutSums leave_out_sums(const std::vector<double>& leave_out) {
  LeaveOutSums out;
  double sum = 0.0;
  for (double x : leave_out) {
    if (std::isnan(x)) continue;
    sum += x;
    ++out.g;
  }
  if (out.g == 0) return out;
  const double mean = sum / static_cast<double>(out.g);
  for (double x : leave_out) {
    if (std::isnan(x)) continue;
    const double d = x - mean;
    out.s2 += d * d;
    out.s3 += d * d * d;
    out.s4 += d * d * d * d;
  }
  return out;
}

}  // namespace

double jackknife_stderr(const std::vector<double>& leave_out) {
  const LeaveOutSums s = leave_out_sums(leave_out);
  if (s.g < 2) return kNaN;
  return std::sqrt(static_cast<double>(s.g - 1) / static_cast<double>(s.g) * s.s2);
}

JackknifeInterval jackknife_interval(double theta, const std::vector<double>& leave_out) {
  const LeaveOutSums s = leave_out_sums(leave_out);
  if (std::isnan(theta) || s.g < 2) return {};
  const auto dg = static_cast<double>(s.g);
  // The pseudo-values' central moments are (g - 1)^k times these, of the opposite sign for odd k.
  const double m2 = s.s2 / dg, m3 = s.s3 / dg, m4 = s.s4 / dg;
  const double se = std::sqrt((dg - 1.0) / dg * s.s2);  // jackknife_stderr()
  const double skewness = m2 > 0.0 ? -m3 / (m2 * std::sqrt(m2)) : 0.0;
  const double kurtosis = m2 > 0.0 ? m4 / (m2 * m2) - 3.0 : 0.0;
  const double dof = 2.0 / (2.0 / (dg - 1.0) + std::max(kurtosis, 0.0) / dg);
  const double x = student_t_975(dof) / std::sqrt(dg);
  const double s_p = se * std::sqrt(dg);  // the pseudo-values' standard deviation
  // T^-1(y) = (3 / gamma) (cbrt(1 + gamma (y - gamma / (6 g))) - 1); y itself as gamma -> 0.
  const auto inverse = [&](double y) {
    if (std::abs(skewness) < 1e-6) return y;
    const double v = 1.0 + skewness * (y - skewness / (6.0 * dg));
    const double cbrt = v < 0.0 ? -dmath::pow(-v, 1.0 / 3.0) : dmath::pow(v, 1.0 / 3.0);
    return 3.0 / skewness * (cbrt - 1.0);
  };
  return {theta - s_p * inverse(x), theta - s_p * inverse(-x)};
}

double student_t_975(double dof) {
  static constexpr std::array<double, 30> kTable = {
      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
      2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
      2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (!(dof >= 1.0)) return kNaN;
  if (dof < 30.0) {
    // Between the tabulated integers k and k + 1, log t linear in 1 / dof: within 0.5 % from
    // dof = 2 on (2.6 % between 1 and 2).
    const auto k = static_cast<std::size_t>(dof);
    const double dk = static_cast<double>(k);
    const double w = (1.0 / dk - 1.0 / dof) / (1.0 / dk - 1.0 / (dk + 1.0));
    if (w == 0.0) return kTable[k - 1];
    return dmath::exp((1.0 - w) * dmath::log(kTable[k - 1]) + w * dmath::log(kTable[k]));
  }
  // Cornish-Fisher expansion about the normal quantile (Abramowitz & Stegun 26.7.5); it meets
  // the table at 30 to 1e-4.
  const double z = 1.959963984540054, nu = dof;
  const double z2 = z * z;
  return z + z * (z2 + 1.0) / (4.0 * nu) + z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * nu * nu) +
         z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / (384.0 * nu * nu * nu);
}

}  // namespace nhsim

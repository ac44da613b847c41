// Batches of trajectories and the statistics derived from them: the growth model of the
// variance, Var(t) = a + b t, with jackknife standard errors, and the ratio of two integrators'
// variances on the same initial states.
//
// Trajectory i falls into batch i mod kBatches, whoever runs it (threads, shards, lanes,
// restarts): each choice keeps, for the batch sample times below, the count and exact sums of
// x and x^2 of each batch (MomentSums), merged like every other statistic. A derived statistic
// theta is then computed from all trajectories and again with each non-empty batch j left out,
// theta_(-j); its standard error is the delete-a-group jackknife's
//   SE = sqrt((g - 1) / g sum_j (theta_(-j) - mean_j theta_(-j))^2),  g non-empty batches
// (B. Efron, "The Jackknife, the Bootstrap and Other Resampling Plans", SIAM 1982, ch. 3; see
// docs/references.md). Its 95 % confidence interval is jackknife_interval()'s. This is the
// batch-means idea for a non-linear statistic: the per-time variances are correlated across t
// (the same trajectories make them), so the ordinary least-squares standard error of a fit
// through them is wrong, while the batches are independent. Two integrators leave out the same
// batch, i.e. the same initial states, together: the pairing of common random numbers is used.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace nhsim {

/// Batches per choice: trajectory i is in batch i mod kBatches.
inline constexpr std::int64_t kBatches = 32;

/// The growth model's sample times start at kGrowthFitStart t_final (the bounded part of the
/// energy error has settled by then on [Celledoni2019]'s chaotic system: docs/statistics.md).
inline constexpr double kGrowthFitStart = 0.1;

/// At most this many sample times carry batch sums (evenly spread over the fit's range).
inline constexpr std::int64_t kMaxBatchSamples = 32;

/// The sample indices whose batch sums are kept: those with t >= kGrowthFitStart t_final and
/// t > 0 (t_final = sample_times.back()), thinned to at most kMaxBatchSamples evenly spread
/// ones, the first and the last always among them. Empty for fewer than two sample times.
std::vector<std::int64_t> batch_sample_indices(const std::vector<double>& sample_times);

/// Var(t) = a + b t fitted by least squares over the batch sample times, and the exponent k of
/// Var ~ t^k (a least-squares line through log Var against log t: k = 1 for a random walk, 0
/// for a bounded error), each with its jackknife standard error. NaN where undefined (fewer
/// than two sample times with a variance, fewer than two non-empty batches; the exponent where
/// some variance is not positive).
struct VarianceGrowth {
  double a = std::numeric_limits<double>::quiet_NaN();  ///< intercept, observable units^2
  double a_stderr = std::numeric_limits<double>::quiet_NaN();
  double b = std::numeric_limits<double>::quiet_NaN();  ///< drift, observable units^2 per time
  double b_stderr = std::numeric_limits<double>::quiet_NaN();
  double exponent = std::numeric_limits<double>::quiet_NaN();
  double exponent_stderr = std::numeric_limits<double>::quiet_NaN();
  std::int64_t samples = 0;  ///< sample times in the fit
  double t_min = 0.0;        ///< first and last of them
  double t_max = 0.0;
  std::int64_t batches = 0;  ///< non-empty batches behind the standard errors
  /// 95 % confidence intervals (jackknife_interval()).
  double a_lower = std::numeric_limits<double>::quiet_NaN();
  double a_upper = std::numeric_limits<double>::quiet_NaN();
  double b_lower = std::numeric_limits<double>::quiet_NaN();
  double b_upper = std::numeric_limits<double>::quiet_NaN();
  double exponent_lower = std::numeric_limits<double>::quiet_NaN();
  double exponent_upper = std::numeric_limits<double>::quiet_NaN();
};

/// The affine fit and log-log exponent of v against t (same lengths): v[k] ~ a + b t[k].
/// Returns {a, b, exponent} (NaN where undefined: fewer than two points, or for the exponent a
/// non-positive v or t).
struct GrowthEstimate {
  double a, b, exponent;
};
GrowthEstimate estimate_growth(const std::vector<double>& t, const std::vector<double>& v);

/// The jackknife standard error of theta from its leave-one-batch-out values (NaN entries are
/// skipped: NaN if fewer than two remain).
double jackknife_stderr(const std::vector<double>& leave_out);

/// A jackknife estimate's 95 % confidence interval from its leave-one-batch-out values
/// theta_(-j), j = 1..g (NaN entries skipped), as the interval of the mean theta of the g
/// pseudo-values P_j = g theta - (g - 1) theta_(-j) with two corrections for skewed, heavy-tailed
/// data (docs/statistics.md has the coverage they buy):
///  - skewness: Hall's transformation of the studentised mean ([Hall1992]),
///    T(D) = D + gamma D^2 / 3 + gamma^2 D^3 / 27 + gamma / (6 g), D = (theta - P mean) / s_P,
///    gamma the pseudo-values' skewness; the interval is theta - s_P T^-1(-+ t / sqrt(g)), of
///    half-width t SE = t s_P / sqrt(g) where gamma = 0;
///  - tails: t = t_{0.975, nu} with effective degrees of freedom nu, g - 1 for normal pseudo-values
///    and fewer for heavy-tailed ones: Satterthwaite's match of the variance of the jackknife's
///    variance estimate ([Satterthwaite1946]), 2 / nu = 2 / (g - 1) + max(kurt, 0) / g, kurt
///    their excess kurtosis.
/// In theta's units; NaN, NaN for a NaN theta or fewer than two leave-out values.
struct JackknifeInterval {
  double lower = std::numeric_limits<double>::quiet_NaN();
  double upper = std::numeric_limits<double>::quiet_NaN();
};
JackknifeInterval jackknife_interval(double theta, const std::vector<double>& leave_out);

/// The two-sided 95 % quantile t_{0.975, dof} of Student's t distribution (dof >= 1, not
/// necessarily an integer: between the tabulated integers log t linear in 1 / dof, within 0.5 %
/// from dof = 2 on; 1.96 for large dof),
/// for confidence intervals theta +- t SE. NaN for dof < 1.
double student_t_975(double dof);

}  // namespace nhsim

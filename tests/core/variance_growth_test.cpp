// The variance growth model and the jackknife (nhsim/variance_growth.hpp): exact lines and
// powers recovered, the jackknife's closed form for a mean, the batch sample times, no standard
// error where leaving a batch out leaves no variance.
#include "nhsim/variance_growth.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim {
namespace {

TEST(VarianceGrowth, AffineFitAndExponentRecoverExactLaws) {
  std::vector<double> t, line, power;
  for (int k = 1; k <= 20; ++k) {
    t.push_back(0.5 * k);
    line.push_back(0.25 + 3e-4 * 0.5 * k);
    power.push_back(7.0 * std::pow(0.5 * k, 1.5));
  }
  const GrowthEstimate g = estimate_growth(t, line);
  EXPECT_NEAR(g.a, 0.25, 1e-14);
  EXPECT_NEAR(g.b, 3e-4, 1e-15);
  EXPECT_NEAR(estimate_growth(t, power).exponent, 1.5, 1e-13);
  // Fewer than two points, or a variance that is not positive: NaN.
  EXPECT_TRUE(std::isnan(estimate_growth({1.0}, {2.0}).b));
  line[3] = 0.0;
  EXPECT_TRUE(std::isnan(estimate_growth(t, line).exponent));
  EXPECT_FALSE(std::isnan(estimate_growth(t, line).b));
}

TEST(VarianceGrowth, JackknifeOfAMeanIsTheStandardErrorOfTheMean) {
  // Leave-one-out means of x_j: the jackknife SE is sd(x) / sqrt(g) exactly.
  const std::vector<double> x = {1.0, 4.0, -2.0, 0.5, 3.0, 2.5};
  const double g = static_cast<double>(x.size());
  double sum = 0.0;
  for (double v : x) sum += v;
  std::vector<double> leave_out;
  for (double v : x) leave_out.push_back((sum - v) / (g - 1.0));
  const double mean = sum / g;
  double ss = 0.0;
  for (double v : x) ss += (v - mean) * (v - mean);
  EXPECT_NEAR(jackknife_stderr(leave_out), std::sqrt(ss / (g - 1.0) / g), 1e-14);
  leave_out.push_back(std::nan(""));  // skipped
  EXPECT_NEAR(jackknife_stderr(leave_out), std::sqrt(ss / (g - 1.0) / g), 1e-14);
  EXPECT_TRUE(std::isnan(jackknife_stderr({1.0})));
}

TEST(VarianceGrowth, BatchSampleTimesStartAtATenthOfTFinalAndAreAtMost32) {
  std::vector<double> t;
  for (int k = 0; k <= 1000; ++k) t.push_back(k * 1.0);
  const std::vector<std::int64_t> many = batch_sample_indices(t);
  ASSERT_EQ(static_cast<std::int64_t>(many.size()), kMaxBatchSamples);
  EXPECT_EQ(many.front(), 100);
  EXPECT_EQ(many.back(), 1000);
  for (std::size_t k = 1; k < many.size(); ++k) EXPECT_GT(many[k], many[k - 1]);
  const std::vector<std::int64_t> few = batch_sample_indices({0.0, 1.0, 2.0, 3.0, 10.0});
  EXPECT_EQ(few, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(batch_sample_indices({0.0, 5.0}), (std::vector<std::int64_t>{1}));
  EXPECT_TRUE(batch_sample_indices({0.0}).empty());
}

TEST(VarianceGrowth, StudentQuantilesMatchTables) {
  EXPECT_NEAR(student_t_975(1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_975(31), 2.0395, 2e-4);
  EXPECT_NEAR(student_t_975(60), 2.0003, 2e-4);
  EXPECT_NEAR(student_t_975(1000000), 1.95996, 1e-4);
  EXPECT_TRUE(std::isnan(student_t_975(0)));
  EXPECT_TRUE(std::isnan(student_t_975(0.5)));
  // Between integers: t_{0.975, 2.5} = 3.5747 and t_{0.975, 5.5} = 2.5019 (by quadrature of the
  // density), and at the table's end the expansion takes over continuously.
  EXPECT_NEAR(student_t_975(2.5), 3.5747, 0.005 * 3.5747);
  EXPECT_NEAR(student_t_975(5.5), 2.5019, 0.001 * 2.5019);
  EXPECT_GT(student_t_975(2.5), student_t_975(3));
  EXPECT_LT(student_t_975(2.5), student_t_975(2));
  EXPECT_NEAR(student_t_975(29.999), student_t_975(30.0), 1e-4);
}

TEST(VarianceGrowth, JackknifeIntervalOfSymmetricLeaveOutsIsTheStudentInterval) {
  // Leave-out values theta_(-j) = 1 -+ d, half each: no skewness, excess kurtosis -2 (so nu =
  // g - 1), SE = sqrt((g - 1) / g sum d^2) = d sqrt(g - 1).
  const int g = 32;
  const double d = 0.01, theta = 1.0;
  std::vector<double> out;
  for (int j = 0; j < g; ++j) out.push_back(theta + (j % 2 == 0 ? d : -d));
  out.push_back(std::numeric_limits<double>::quiet_NaN());  // skipped
  const JackknifeInterval i = jackknife_interval(theta, out);
  const double half = student_t_975(g - 1) * d * std::sqrt(g - 1.0);
  EXPECT_NEAR(i.lower, theta - half, 1e-12);
  EXPECT_NEAR(i.upper, theta + half, 1e-12);
  EXPECT_NEAR(jackknife_stderr(out), d * std::sqrt(g - 1.0), 1e-15);
}

TEST(VarianceGrowth, JackknifeIntervalLeansTowardsTheLongTailAndWidensForHeavyTails) {
  // One batch whose absence lowers theta a lot: its pseudo-value is large, so the pseudo-values
  // are skewed to the right and heavy-tailed; the interval reaches further up than down, and
  // further than theta +- t_{0.975, g - 1} SE does.
  const int g = 32;
  const double theta = 1.0;
  std::vector<double> out(g, theta + 0.01);
  out[7] = theta - 0.3;
  const JackknifeInterval i = jackknife_interval(theta, out);
  const double half = student_t_975(g - 1) * jackknife_stderr(out);
  EXPECT_GT(i.upper - theta, theta - i.lower);
  EXPECT_GT(i.upper, theta + half);
  // Undefined: NaN theta, or fewer than two leave-out values.
  for (const JackknifeInterval& u :
       {jackknife_interval(std::numeric_limits<double>::quiet_NaN(), out),
        jackknife_interval(theta, {1.0})}) {
    EXPECT_TRUE(std::isnan(u.lower) && std::isnan(u.upper));
  }
}

/// The energy error's growth model of si_dla on the chaotic quartic (n = 3) over `count`
/// trajectories of the variance example's energy shell, to t = 50.
VarianceGrowth energy_growth(int count) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  s.initial_conditions = EnergyShellGenerator{3.06, 20261122, count, 0.5, 10000};
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.05;
  c.sample_every = 20;
  s.integrators.push_back(c);
  s.t_final = 50.0;
  for (const SeriesStats& o : run_ensemble(s).integrators.at(0).observables) {
    if (o.observable == "energy_error") return o.variance_growth;
  }
  ADD_FAILURE() << "no energy_error";
  return {};
}

TEST(VarianceGrowth, TwoTrajectoriesGiveAFitWithoutAStandardError) {
  // Two batches of one trajectory each: leaving one out leaves one trajectory, whose variance is
  // undefined, so the jackknife has no value (it served 0.0 before).
  const VarianceGrowth two = energy_growth(2);
  EXPECT_EQ(two.batches, 2);
  EXPECT_TRUE(std::isfinite(two.b));
  EXPECT_TRUE(std::isnan(two.b_stderr));
  EXPECT_TRUE(std::isnan(two.a_stderr));
  // Three: each leave-out keeps two trajectories, and the standard error exists.
  const VarianceGrowth three = energy_growth(3);
  EXPECT_EQ(three.batches, 3);
  EXPECT_TRUE(std::isfinite(three.b_stderr));
  EXPECT_GT(three.b_stderr, 0.0);
}

}  // namespace
}  // namespace nhsim

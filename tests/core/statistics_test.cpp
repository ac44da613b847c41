// Streaming statistics: Welford/Chan merge against a two-pass computation.
#include "nhsim/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace nhsim {
namespace {

TEST(Statistics, MergedWelfordEqualsTwoPass) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd(1e3, 2.5);  // large mean: catches naive sum-of-squares
  std::vector<double> x(1000);
  for (auto& v : x) v = nd(rng);
  // Unequal chunks merged in order.
  RunningStats total;
  std::size_t pos = 0;
  for (std::size_t chunk : {1u, 7u, 100u, 0u, 392u, 500u}) {
    RunningStats part;
    for (std::size_t k = 0; k < chunk; ++k) part.add(x[pos++]);
    total.merge(part);
  }
  ASSERT_EQ(pos, x.size());
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0.0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double var = ss / static_cast<double>(x.size() - 1);
  EXPECT_EQ(total.n, 1000);
  EXPECT_NEAR(total.mean, mean, 1e-12 * std::abs(mean));
  EXPECT_NEAR(total.variance(), var, 1e-12 * var);
  EXPECT_EQ(total.min, *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(total.max, *std::max_element(x.begin(), x.end()));
}

TEST(Statistics, VarianceOfFewerThanTwoIsZero) {
  RunningStats s;
  EXPECT_EQ(s.variance(), 0.0);
  s.add(4.0);
  EXPECT_EQ(s.variance(), 0.0);
  s.add(6.0);
  EXPECT_EQ(s.variance(), 2.0);
}

TEST(Statistics, SlopeThroughOriginRecoversALinearLaw) {
  // v = 3e-4 t exactly, plus an entry with count < 2 that must be ignored.
  std::vector<double> t = {0.0, 1.0, 2.0, 3.0, 4.0}, v = {0.0, 3e-4, 6e-4, 9e-4, 5.0};
  std::vector<std::int64_t> c = {5, 5, 5, 5, 1};
  EXPECT_NEAR(slope_through_origin(t, v, c), 3e-4, 1e-18);
  c = {1, 1, 1, 1, 1};
  EXPECT_EQ(slope_through_origin(t, v, c), 0.0);
}

}  // namespace
}  // namespace nhsim

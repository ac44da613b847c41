// QuantileSketch: exact for small samples, within its relative accuracy of the order statistic
// for large ones, the same state for any split and order of add/merge, bounded size, NaN
// conventions, state round trip.
#include "nhsim/quantiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>
#include <vector>

#include "bit_test_support.hpp"

namespace nhsim {
namespace {

// Hyndman & Fan type 7 on a sorted array: h = p (n - 1), x_j + (h - j) (x_{j+1} - x_j).
double type7(const std::vector<double>& sorted, double p) {
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto j = static_cast<std::size_t>(std::floor(h));
  if (j + 1 >= sorted.size()) return sorted.back();
  if (h == static_cast<double>(j)) return sorted[j];
  return sorted[j] + (h - static_cast<double>(j)) * (sorted[j + 1] - sorted[j]);
}

using test::bit_equal;

// Test data from SplitMix64 (Steele, Lea & Flood 2014) so that the values, and with them the
// asserted accuracies, are the same with every standard library.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

// N(1, 2^2) by Box-Muller.
std::vector<double> normal_values(std::size_t n, unsigned seed) {
  SplitMix64 rng{seed};
  std::vector<double> v(n);
  for (auto& x : v) {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    x = 1.0 + 2.0 * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  return v;
}

// U(-3, 5).
std::vector<double> uniform_values(std::size_t n, unsigned seed) {
  SplitMix64 rng{seed};
  std::vector<double> v(n);
  for (auto& x : v) x = -3.0 + 8.0 * rng.uniform();
  return v;
}

const double kProbes[] = {0.0, 0.01, 0.05, 0.1, 0.25, 0.333, 0.5, 0.6, 0.75, 0.9, 0.95, 0.99, 1.0};

QuantileSketch sketch_of(const std::vector<double>& v) {
  QuantileSketch s;
  for (double x : v) s.add(x);
  return s;
}

void expect_same_state(const QuantileSketch& a, const QuantileSketch& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.bucketed(), b.bucketed());
  EXPECT_EQ(a.exact_values(), b.exact_values());
  EXPECT_EQ(a.positive().offset, b.positive().offset);
  EXPECT_EQ(a.positive().counts, b.positive().counts);
  EXPECT_EQ(a.negative().offset, b.negative().offset);
  EXPECT_EQ(a.negative().counts, b.negative().counts);
  EXPECT_EQ(a.zeros(), b.zeros());
  for (double p : kProbes) EXPECT_TRUE(bit_equal(a.quantile(p), b.quantile(p))) << p;
}

TEST(QuantileSketch, ExactInterpolatedOrderStatisticsForSmallSamples) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                        std::size_t{21}, std::size_t{100}, QuantileSketch::kExactCapacity}) {
    const std::vector<double> v = normal_values(n, 5);
    const QuantileSketch s = sketch_of(v);
    EXPECT_FALSE(s.bucketed());
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (double p : kProbes)
      EXPECT_TRUE(bit_equal(s.quantile(p), type7(sorted, p))) << n << " " << p;
  }
}

// The exact regime selects each order statistic in place (quantiles.cpp: a quickselect that
// hands over to std::nth_element after too many rounds). Orders that defeat a median-of-three
// pivot, ties, and probabilities out of order and repeated, all in one quantiles() call.
TEST(QuantileSketch, ExactQuantilesOfOneCallAreTheOrderStatisticsForAnyInputOrder) {
  const double probes[] = {0.95, 0.05, 0.5, 0.5, 1.0, 0.0, 0.333, 0.99, 0.01, 0.6};
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{13}, std::size_t{14},
                        std::size_t{200}, QuantileSketch::kExactCapacity}) {
    std::vector<double> ascending = normal_values(n, 17);
    std::sort(ascending.begin(), ascending.end());
    std::vector<double> descending(ascending.rbegin(), ascending.rend());
    std::vector<double> organ_pipe;  // rising, then falling
    for (std::size_t i = 0; i < n; ++i)
      if (i % 2 == 0) organ_pipe.push_back(ascending[i]);
    for (std::size_t i = n; i-- > 0;)
      if (i % 2 == 1) organ_pipe.push_back(ascending[i]);
    std::vector<double> few_values = uniform_values(n, 23);  // each of 3 values many times
    for (double& x : few_values) x = std::floor(x / 3.0);
    const std::vector<double> all_equal(n, 2.5);
    for (const std::vector<double>& v :
         {ascending, descending, organ_pipe, few_values, all_equal}) {
      const QuantileSketch s = sketch_of(v);
      std::vector<double> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      double q[std::size(probes)];
      s.quantiles(probes, q);
      for (std::size_t i = 0; i < std::size(probes); ++i)
        EXPECT_TRUE(bit_equal(q[i], type7(sorted, probes[i]))) << n << " " << probes[i];
    }
  }
}

TEST(QuantileSketch, ExactAfterMergingSmallSketches) {
  const std::vector<double> v = uniform_values(300, 9);
  QuantileSketch a, b, c;
  for (std::size_t i = 0; i < v.size(); ++i) (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(v[i]);
  c.merge(a);
  c.merge(b);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (double p : kProbes) EXPECT_TRUE(bit_equal(c.quantile(p), type7(sorted, p))) << p;
}

// Beyond kExactCapacity values: within alpha of x_j, j = floor(p (n - 1)); min and max exact.
void check_large(const std::vector<double>& v) {
  const QuantileSketch s = sketch_of(v);
  ASSERT_TRUE(s.bucketed());
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const double n1 = static_cast<double>(sorted.size() - 1);
  for (double p : kProbes) {
    const double xj = sorted[static_cast<std::size_t>(std::floor(p * n1))];
    const double q = s.quantile(p);
    if (p == 0.0 || p == 1.0) {
      EXPECT_EQ(q, xj) << p;
    } else {
      EXPECT_LE(std::abs(q - xj), QuantileSketch::kRelativeAccuracy * std::abs(xj) * (1 + 1e-12))
          << p;
    }
  }
}

TEST(QuantileSketch, RelativeAccuracyNormal) { check_large(normal_values(200000, 11)); }
TEST(QuantileSketch, RelativeAccuracyUniform) { check_large(uniform_values(200000, 12)); }

TEST(QuantileSketch, AnySplitAndOrderGivesTheSameState) {
  std::vector<double> v = normal_values(5000, 21);
  v[17] = 0.0;
  v[18] = -0.0;
  v[19] = 1e-200;  // 200 decades below the rest: collapses into the lowest positive bucket
  v[20] = -1e250;  // makes every other negative value collapse
  const QuantileSketch whole = sketch_of(v);
  for (std::size_t shards : {3u, 7u}) {
    // Uneven shards, merged back to front and as a tree.
    std::vector<QuantileSketch> parts(shards);
    for (std::size_t i = 0; i < v.size(); ++i) parts[(i * i + 3 * i) % shards].add(v[i]);
    QuantileSketch back_to_front;
    for (std::size_t k = shards; k-- > 0;) back_to_front.merge(parts[k]);
    expect_same_state(whole, back_to_front);
    while (parts.size() > 1) {
      std::vector<QuantileSketch> next;
      for (std::size_t k = 0; k + 1 < parts.size(); k += 2) {
        next.push_back(parts[k + 1]);
        next.back().merge(parts[k]);
      }
      if (parts.size() % 2 == 1) next.push_back(parts.back());
      parts = std::move(next);
    }
    expect_same_state(whole, parts[0]);
  }
  std::vector<double> reversed(v.rbegin(), v.rend());
  expect_same_state(whole, sketch_of(reversed));
}

// add_all (the ensemble's path: a block's values of one cell at a time) gives add()'s state, in
// batches that cross the switch to buckets and the 64-value batch inside add_all, with zeros of
// both signs, non-finite values, and values that collapse into the lowest buckets; reserve()
// hints below and beyond kExactCapacity change nothing.
TEST(QuantileSketch, AddAllGivesTheStateOfAddingOneByOne) {
  std::vector<double> v = normal_values(3000, 23);
  v[17] = 0.0;
  v[18] = -0.0;
  v[19] = 1e-200;
  v[600] = -1e250;
  v[900] = -0.0;
  for (const std::size_t batch : {1u, 7u, 64u, 65u, 397u, 3000u}) {
    QuantileSketch batched;
    batched.reserve(5 * batch);
    for (std::size_t i = 0; i < v.size(); i += batch) {
      batched.add_all(std::span<const double>(v).subspan(i, std::min(batch, v.size() - i)));
    }
    expect_same_state(sketch_of(v), batched);
    EXPECT_TRUE(bit_equal(batched.min(), sketch_of(v).min())) << batch;
    EXPECT_TRUE(bit_equal(batched.max(), sketch_of(v).max())) << batch;
  }
  std::vector<double> with_nan = v;
  with_nan[1500] = std::nan("");
  QuantileSketch a = sketch_of(with_nan), b;
  b.add_all(with_nan);
  EXPECT_EQ(a.non_finite(), 1);
  EXPECT_EQ(b.non_finite(), 1);
  EXPECT_EQ(b.count(), a.count());
  EXPECT_TRUE(std::isnan(b.quantile(0.5)));
}

TEST(QuantileSketch, SizeIsBoundedWhateverTheCount) {
  // Magnitudes over 40 decades: the store keeps kMaxBuckets, the smallest collapse into its
  // lowest bucket, and the state is the same in ascending and descending order.
  std::vector<double> v;
  for (int k = 0; k < 100000; ++k) v.push_back(std::pow(10.0, -30.0 + 40.0 * k / 99999.0));
  const QuantileSketch up = sketch_of(v);
  EXPECT_EQ(up.positive().counts.size(), static_cast<std::size_t>(QuantileSketch::kMaxBuckets));
  std::reverse(v.begin(), v.end());
  expect_same_state(up, sketch_of(v));
  // A million values of a normal: the store width depends on the range, not the count.
  const QuantileSketch small = sketch_of(normal_values(10000, 3));
  const QuantileSketch large = sketch_of(normal_values(1000000, 3));
  EXPECT_LE(large.positive().counts.size(), small.positive().counts.size() + 400);
  EXPECT_LE(large.positive().counts.size(), 1500u);
}

TEST(QuantileSketch, EmptyAndNonFiniteGiveNaNAndBadProbabilityThrows) {
  QuantileSketch s;
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  s.add(1.0);
  s.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  EXPECT_EQ(s.count(), 2);
  EXPECT_THROW((void)s.quantile(1.5), std::invalid_argument);
  EXPECT_THROW((void)s.quantile(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  double out[2];
  const double p[1] = {0.5};
  EXPECT_THROW(s.quantiles(p, out), std::invalid_argument);
}

TEST(QuantileSketch, StateRoundTripsAndInconsistentStatesAreRefused) {
  for (std::size_t n : {std::size_t{50}, std::size_t{5000}}) {
    const QuantileSketch s = sketch_of(normal_values(n, 8));
    const QuantileSketch t =
        QuantileSketch::from_state(s.count(), s.exact_values(), s.bucketed(), s.positive(),
                                   s.negative(), s.zeros(), s.non_finite(), s.min(), s.max());
    expect_same_state(s, t);
    EXPECT_THROW((void)QuantileSketch::from_state(s.count() + 1, s.exact_values(), s.bucketed(),
                                                  s.positive(), s.negative(), s.zeros(),
                                                  s.non_finite(), s.min(), s.max()),
                 std::invalid_argument);
  }
}

TEST(QuantileSketch, OrderStatisticsAreTheSortedValuesAndBucketsWithinAlpha) {
  const std::vector<double> v = normal_values(301, 21);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const QuantileSketch s = sketch_of(v);
  const std::int64_t ranks[] = {300, 0, 150, 7, 7, 299};  // any order, repeats
  double out[6];
  s.order_statistics(ranks, out);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], sorted[static_cast<std::size_t>(ranks[i])]) << i;
  // Bucketed: within relative error alpha of the order statistic.
  const std::vector<double> big = normal_values(5000, 22);
  std::vector<double> big_sorted = big;
  std::sort(big_sorted.begin(), big_sorted.end());
  const QuantileSketch b = sketch_of(big);
  for (std::int64_t r : {0, 10, 250, 2500, 4750, 4999}) {
    double x = 0.0;
    b.order_statistics(std::span<const std::int64_t>(&r, 1), std::span<double>(&x, 1));
    const double exact = big_sorted[static_cast<std::size_t>(r)];
    EXPECT_LE(std::abs(x - exact), QuantileSketch::kRelativeAccuracy * std::abs(exact) * 1.0001)
        << r;
  }
  const std::int64_t bad = 301;
  double x = 0.0;
  EXPECT_THROW(s.order_statistics(std::span<const std::int64_t>(&bad, 1), std::span<double>(&x, 1)),
               std::invalid_argument);
}

TEST(QuantileIntervalRanks, ExactBinomialRanksAsTabulated) {
  // The classic 95 % interval of the median of 100 values: the 40th and 61st order statistics.
  EXPECT_EQ(quantile_interval_ranks(100, 0.5).lower, 39);
  EXPECT_EQ(quantile_interval_ranks(100, 0.5).upper, 60);
  EXPECT_EQ(quantile_interval_ranks(400, 0.05).lower, 11);
  EXPECT_EQ(quantile_interval_ranks(400, 0.05).upper, 29);
  EXPECT_EQ(quantile_interval_ranks(400, 0.95).lower, 370);
  EXPECT_EQ(quantile_interval_ranks(400, 0.95).upper, 388);
  // 0.95^71 > 2.5 %: 71 values cannot bound the 5 % quantile from below; 72 can.
  EXPECT_EQ(quantile_interval_ranks(71, 0.05).lower, -1);
  EXPECT_EQ(quantile_interval_ranks(72, 0.05).lower, 0);
  EXPECT_EQ(quantile_interval_ranks(5, 0.5).lower, -1);
  EXPECT_EQ(quantile_interval_ranks(5, 0.5).upper, 5);
  EXPECT_EQ(quantile_interval_ranks(6, 0.5).lower, 0);
  EXPECT_EQ(quantile_interval_ranks(6, 0.5).upper, 5);
  // The normal approximation beyond 400 values, symmetric for the median.
  const QuantileRanks big = quantile_interval_ranks(10000, 0.5);
  EXPECT_EQ(big.lower + big.upper, 9999);
  EXPECT_NEAR(static_cast<double>(big.upper - big.lower), 2 * 1.96 * 50.0, 3.0);
}

}  // namespace
}  // namespace nhsim

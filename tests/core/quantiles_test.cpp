// QuantileSketch (merging t-digest): exact for small samples, bounded size and rank accuracy
// for large ones, deterministic add/merge sequences, NaN conventions.
#include "nhsim/quantiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

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

// Fraction of the sorted values <= x (the empirical CDF at x).
double rank_of(const std::vector<double>& sorted, double x) {
  return static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin()) /
         static_cast<double>(sorted.size());
}

bool bit_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

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

TEST(QuantileSketch, ExactInterpolatedOrderStatisticsForSmallSamples) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                        std::size_t{21}, std::size_t{100}, QuantileSketch::kCapacity}) {
    const std::vector<double> v = normal_values(n, static_cast<unsigned>(n));
    QuantileSketch s;
    for (double x : v) s.add(x);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(s.count(), static_cast<std::int64_t>(n));
    for (double p : kProbes) {
      EXPECT_EQ(s.quantile(p), type7(sorted, p)) << "n = " << n << ", p = " << p;
    }
  }
}

TEST(QuantileSketch, ExactAfterMergingSmallSketches) {
  const std::vector<double> v = uniform_values(150, 3);
  QuantileSketch a, b, c;
  for (std::size_t i = 0; i < v.size(); ++i) (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(v[i]);
  a.merge(b);
  a.merge(c);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (double p : kProbes) EXPECT_EQ(a.quantile(p), type7(sorted, p)) << "p = " << p;
}

TEST(QuantileSketch, TiesAndConstantSamples) {
  QuantileSketch s;
  for (int i = 0; i < 1000; ++i) s.add(2.5);
  for (double p : kProbes) EXPECT_EQ(s.quantile(p), 2.5);
  QuantileSketch t;
  for (int i = 0; i < 5000; ++i) t.add(i % 2 == 0 ? 0.0 : 1.0);
  EXPECT_EQ(t.quantile(0.05), 0.0);
  EXPECT_EQ(t.quantile(0.95), 1.0);
}

TEST(QuantileSketch, EmptyAndNonFiniteGiveNaNAndBadProbabilityThrows) {
  QuantileSketch s;
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  s.add(1.0);
  EXPECT_EQ(s.quantile(0.5), 1.0);
  s.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(s.count(), 2);
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  QuantileSketch t;
  t.add(1.0);
  t.merge(s);  // non-finite is contagious through merge
  EXPECT_TRUE(std::isnan(t.quantile(0.05)));
  EXPECT_THROW((void)t.quantile(-0.1), std::invalid_argument);
  EXPECT_THROW((void)t.quantile(1.5), std::invalid_argument);
  EXPECT_THROW((void)t.quantile(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

// 10^6 values in one stream and as 1000 merged chunks: size stays bounded, and the estimated
// 5/50/95 % points have rank error <= 1 % (typically a few 1e-3, see nhsim/quantiles.hpp).
void check_large(const std::vector<double>& v) {
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  QuantileSketch stream;
  std::size_t largest = 0;
  for (double x : v) {
    stream.add(x);
    largest = std::max(largest, stream.centroids().size());
  }
  EXPECT_LE(largest, QuantileSketch::kCapacity + 1);
  EXPECT_LE(stream.centroids().capacity(), QuantileSketch::kCapacity + 1);
  EXPECT_EQ(stream.count(), static_cast<std::int64_t>(v.size()));

  QuantileSketch merged;
  for (std::size_t c = 0; c < v.size(); c += 1000) {
    QuantileSketch chunk;
    for (std::size_t i = c; i < std::min(v.size(), c + 1000); ++i) chunk.add(v[i]);
    merged.merge(chunk);
    EXPECT_LE(merged.centroids().size(), QuantileSketch::kCapacity + 1);
  }
  for (const QuantileSketch* s : {&stream, &merged}) {
    for (double p : {0.05, 0.5, 0.95}) {
      const double q = s->quantile(p);
      EXPECT_NEAR(rank_of(sorted, q), p, 0.01) << "p = " << p;
    }
    EXPECT_EQ(s->quantile(0.0), sorted.front());
    EXPECT_EQ(s->quantile(1.0), sorted.back());
  }
}

TEST(QuantileSketch, BoundedSizeAndRankAccuracyNormal) { check_large(normal_values(1000000, 11)); }

TEST(QuantileSketch, BoundedSizeAndRankAccuracyUniform) {
  check_large(uniform_values(1000000, 12));
}

TEST(QuantileSketch, SameMergeSequenceGivesBitIdenticalState) {
  const std::vector<double> v = normal_values(100000, 5);
  auto build = [&] {
    QuantileSketch total;
    for (std::size_t c = 0; c < v.size(); c += 8) {  // the runner's block size
      QuantileSketch block;
      for (std::size_t i = c; i < std::min(v.size(), c + 8); ++i) block.add(v[i]);
      total.merge(block);
    }
    return total;
  };
  const QuantileSketch a = build(), b = build();
  ASSERT_EQ(a.centroids().size(), b.centroids().size());
  for (std::size_t i = 0; i < a.centroids().size(); ++i) {
    EXPECT_TRUE(bit_equal(a.centroids()[i].mean, b.centroids()[i].mean));
    EXPECT_EQ(a.centroids()[i].weight, b.centroids()[i].weight);
  }
  for (double p : kProbes) EXPECT_TRUE(bit_equal(a.quantile(p), b.quantile(p))) << p;
  // The state is compressed (non-vacuous) and a different order is really a different input:
  // the digest is order-dependent, which is why the runner fixes the order.
  EXPECT_LT(a.centroids().size(), QuantileSketch::kCapacity + 2);
  EXPECT_GT(a.count(), static_cast<std::int64_t>(QuantileSketch::kCapacity));
  QuantileSketch reversed;
  for (auto it = v.rbegin(); it != v.rend(); ++it) reversed.add(*it);
  bool any_difference = false;
  for (double p : kProbes) any_difference = any_difference || a.quantile(p) != reversed.quantile(p);
  EXPECT_TRUE(any_difference);
}

TEST(QuantileSketch, SeveralQuantilesAtOnceEqualOneByOne) {
  QuantileSketch s;
  for (double x : normal_values(5000, 9)) s.add(x);
  const std::vector<double> p(std::begin(kProbes), std::end(kProbes));
  std::vector<double> out(p.size());
  s.quantiles(p, out);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_TRUE(bit_equal(out[i], s.quantile(p[i])));
  EXPECT_LT(out[2], out[6]);  // q05 < q50: non-vacuous
  std::vector<double> short_out(1);
  EXPECT_THROW(s.quantiles(p, short_out), std::invalid_argument);
}

TEST(QuantileSketch, SelfMergeDoublesTheWeights) {
  QuantileSketch s;
  for (double x : uniform_values(50, 1)) s.add(x);
  const double median = s.quantile(0.5);
  s.merge(s);
  EXPECT_EQ(s.count(), 100);
  EXPECT_EQ(s.quantile(0.5), median);  // each value twice: the type-7 median is unchanged
}

}  // namespace
}  // namespace nhsim

// ExactSum and CellStats: exact, order-independent sums; mean and variance against a
// long-double two-pass reference; standard errors against closed forms; bit-identical results
// for any split and merge order.
#include "nhsim/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "bit_test_support.hpp"

namespace nhsim {
namespace {

using test::bit_equal;

double exact_sum_of(const std::vector<double>& v) {
  ExactSum s;
  for (double x : v) s.add(x);
  return s.value();
}

TEST(ExactSum, CancellationAndRoundingAreExact) {
  EXPECT_EQ(exact_sum_of({1e16, 1.0, -1e16}), 1.0);  // naive left-to-right: 0
  EXPECT_EQ(exact_sum_of({1e300, 1e-300, -1e300}), 1e-300);
  EXPECT_EQ(exact_sum_of({0x1p-1074, 0x1p-1074}), 0x1p-1073);  // subnormals
  // Ten times fl(0.1) is 1 + 5.55e-17 exactly, which rounds to 1 (naive: 1 - 1.1e-16).
  EXPECT_EQ(exact_sum_of(std::vector<double>(10, 0.1)), 1.0);
  // Ties to even: 1 + 2^-53 rounds to 1, 1 + 2^-53 + 2^-105 to the next double up.
  EXPECT_EQ(exact_sum_of({1.0, 0x1p-53}), 1.0);
  EXPECT_EQ(exact_sum_of({1.0, 0x1p-53, 0x1p-105}), 1.0 + 0x1p-52);
  EXPECT_EQ(exact_sum_of({-2.5, 0.5}), -2.0);
  EXPECT_EQ(exact_sum_of({}), 0.0);
  EXPECT_EQ(exact_sum_of({std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                          -std::numeric_limits<double>::max()}),
            std::numeric_limits<double>::max());
}

TEST(ExactSum, NonFiniteValuesFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exact_sum_of({1.0, inf}), inf);
  EXPECT_EQ(exact_sum_of({-inf, 2.0}), -inf);
  EXPECT_TRUE(std::isnan(exact_sum_of({inf, -inf})));
  EXPECT_TRUE(std::isnan(exact_sum_of({1.0, std::numeric_limits<double>::quiet_NaN()})));
}

TEST(ExactSum, AnyOrderAndGroupingGivesTheSameCanonicalState) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-300.0, 300.0), sign(-1.0, 1.0);
  std::vector<double> v(20000);
  for (auto& x : v) x = std::copysign(std::pow(10.0, exponent(rng)), sign(rng));
  ExactSum whole;
  for (double x : v) whole.add(x);
  std::shuffle(v.begin(), v.end(), rng);
  ExactSum a, b, c;
  for (std::size_t i = 0; i < v.size(); ++i) (i < 3 ? a : i < 9000 ? b : c).add(v[i]);
  c.merge(a);
  b.merge(c);
  EXPECT_EQ(whole.canonical_digits(), b.canonical_digits());
  EXPECT_TRUE(bit_equal(whole.value(), b.value()));
  const ExactSum round_trip = ExactSum::from_canonical(b.canonical_digits(), b.non_finite_flags());
  EXPECT_EQ(round_trip.canonical_digits(), whole.canonical_digits());
}

/// Random doubles whose binary exponents are uniform over [lowest, highest], of either sign.
std::vector<double> spread_values(std::mt19937_64& rng, std::size_t n, int lowest, int highest) {
  std::uniform_int_distribution<int> exponent(lowest, highest);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::vector<double> v(n);
  for (auto& x : v) x = std::ldexp(rng() % 2 != 0 ? -mantissa(rng) : mantissa(rng), exponent(rng));
  return v;
}

TEST(ExactSum, AddAllIsTheSumOfAddingOneByOne) {
  std::mt19937_64 rng(2026);
  std::vector<std::vector<double>> cases;
  // Spreads of 2^4 (one level), 2^40 (two), 2^85 (three) and 2^300 (a remainder added value by
  // value), subnormals, the whole range up to where sigma would overflow, and sizes that are not
  // multiples of the chunk or of its eight partial sums.
  for (const auto& [lowest, highest] : std::vector<std::pair<int, int>>{{-20, -16},
                                                                        {-60, -20},
                                                                        {-90, -5},
                                                                        {-300, 0},
                                                                        {-1074, -1030},
                                                                        {-1074, 1023},
                                                                        {1000, 1023}})
    for (std::size_t n : {1, 7, 8, 63, 64, 65, 200})
      cases.push_back(spread_values(rng, n, lowest, highest));
  cases.push_back(std::vector<double>(70, -0.0));
  // The bounds of the extraction: 64 values at the top of their binade (all mantissa bits set),
  // whose level sums reach sigma, and the largest magnitude below where sigma would overflow.
  cases.push_back(std::vector<double>(64, std::nextafter(0x1p-3, 0.0)));
  cases.push_back(std::vector<double>(64, -std::nextafter(0x1p1017, 0.0)));
  cases.push_back({});
  std::vector<double> cancelling = spread_values(rng, 32, -60, 10);
  for (std::size_t i = 0; i < 32; ++i) cancelling.push_back(-cancelling[i]);
  cases.push_back(cancelling);
  cases.push_back({1.0, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()});
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    std::vector<double> v = spread_values(rng, 100, -10, 10);
    v[70] = bad;
    cases.push_back(v);
  }
  for (const std::vector<double>& v : cases) {
    ExactSum one_by_one, all;
    for (double x : v) one_by_one.add(x);
    all.add_all(v);
    EXPECT_EQ(all.canonical_digits(), one_by_one.canonical_digits()) << v.size() << " values";
    EXPECT_EQ(all.non_finite_flags(), one_by_one.non_finite_flags());
  }
}

TEST(MomentSums, AddAllIsBitIdenticalToAddingOneByOne) {
  std::mt19937_64 rng(7);
  for (const auto& [lowest, highest] :
       std::vector<std::pair<int, int>>{{-40, -10}, {-560, -500}, {480, 520}}) {
    const std::vector<double> v = spread_values(rng, 150, lowest, highest);
    MomentSums one_by_one, all;
    for (double x : v) one_by_one.add(x);
    all.add_all(v);
    EXPECT_EQ(all.n, one_by_one.n);
    EXPECT_EQ(all.sum.canonical_digits(), one_by_one.sum.canonical_digits());
    EXPECT_EQ(all.sum_sq.canonical_digits(), one_by_one.sum_sq.canonical_digits());
    EXPECT_EQ(all.sum_sq.non_finite_flags(), one_by_one.sum_sq.non_finite_flags());
  }
}

TEST(ExactSum, MagnitudeFormRoundTripsForBothSignsAndTheExtremes) {
  const double big = std::numeric_limits<double>::max();
  for (const std::vector<double>& values :
       std::vector<std::vector<double>>{{},
                                        {1.5},
                                        {-1.5},
                                        {-0x1p-1074},
                                        {1e300, -3e-300, 7.25},
                                        std::vector<double>(5000, -big),
                                        std::vector<double>(5000, big)}) {
    ExactSum s;
    for (double x : values) s.add(x);
    std::vector<std::uint32_t> digits;
    bool negative = false;
    s.magnitude(digits, negative);
    const ExactSum back = ExactSum::from_magnitude(digits, negative, s.non_finite_flags());
    EXPECT_EQ(back.canonical_digits(), s.canonical_digits()) << values.size();
    EXPECT_TRUE(bit_equal(back.value(), s.value()));
  }
  EXPECT_THROW((void)ExactSum::from_magnitude(std::vector<std::uint32_t>(74, 1u), false, 0),
               std::invalid_argument);
  EXPECT_THROW((void)ExactSum::from_magnitude({1u}, false, 8), std::invalid_argument);
}

// Two-pass reference in long double (64-bit mantissa on x86-64).
void reference(const std::vector<double>& x, double& mean, double& var) {
  long double s = 0;
  for (double v : x) s += v;
  const long double m = s / static_cast<long double>(x.size());
  long double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  mean = static_cast<double>(m);
  var = static_cast<double>(ss / static_cast<long double>(x.size() - 1));
}

TEST(CellStats, MeanAndVarianceMatchATwoPassReference) {
  std::mt19937_64 rng(3);
  for (double centre : {0.0, 1e3, 1e8}) {  // a large mean ruins a naive sum of squares
    std::normal_distribution<double> nd(centre, 2.5);
    std::vector<double> x(1000);
    for (auto& v : x) v = nd(rng);
    CellStats c;
    for (double v : x) c.add(v);
    double mean = 0, var = 0;
    reference(x, mean, var);
    EXPECT_EQ(c.n, 1000);
    EXPECT_NEAR(c.mean(), mean, 1e-15 * std::max(1.0, std::abs(mean))) << centre;
    EXPECT_NEAR(c.variance(), var, 1e-12 * var) << centre;
    EXPECT_EQ(c.min, *std::min_element(x.begin(), x.end()));
    EXPECT_EQ(c.max, *std::max_element(x.begin(), x.end()));
  }
}

TEST(CellStats, VarianceOfEqualValuesIsZeroAndOfFewerThanTwoIsZero) {
  CellStats s;
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_TRUE(std::isnan(s.mean()));
  s.add(4.0);
  EXPECT_EQ(s.variance(), 0.0);
  s.add(6.0);
  EXPECT_EQ(s.variance(), 2.0);
  CellStats same;
  for (int k = 0; k < 777; ++k) same.add(0.1);
  EXPECT_EQ(same.variance(), 0.0);
  EXPECT_EQ(same.mean(), 0.1);
}

TEST(CellStats, AnySplitAndMergeOrderIsBitIdentical) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(1e-9, 3e-10);
  std::vector<double> x(3000);
  for (auto& v : x) v = nd(rng);
  x[5] = -0.0;
  x[6] = 0.0;
  CellStats whole;
  for (double v : x) whole.add(v);
  for (std::size_t shards : {3u, 7u}) {
    std::vector<CellStats> parts(shards);
    for (std::size_t i = 0; i < x.size(); ++i) parts[(i * 7 + i / 5) % shards].add(x[i]);
    CellStats merged;
    for (std::size_t k = shards; k-- > 0;) merged.merge(parts[k]);
    EXPECT_EQ(merged.n, whole.n);
    EXPECT_TRUE(bit_equal(merged.mean(), whole.mean()));
    EXPECT_TRUE(bit_equal(merged.variance(), whole.variance()));
    EXPECT_TRUE(bit_equal(merged.min, whole.min));
    EXPECT_TRUE(bit_equal(merged.max, whole.max));
    EXPECT_TRUE(bit_equal(merged.sketch.quantile(0.5), whole.sketch.quantile(0.5)));
    EXPECT_TRUE(bit_equal(merged.mean_stderr(), whole.mean_stderr()));
    EXPECT_TRUE(bit_equal(merged.variance_stderr(), whole.variance_stderr()));
    double lower[2], upper[2];
    merged.variance_interval(lower[0], upper[0]);
    whole.variance_interval(lower[1], upper[1]);
    EXPECT_TRUE(bit_equal(lower[0], lower[1]) && bit_equal(upper[0], upper[1]));
    EXPECT_EQ(merged.sum_cube.canonical_digits(), whole.sum_cube.canonical_digits());
    EXPECT_EQ(merged.sum_fourth.canonical_digits(), whole.sum_fourth.canonical_digits());
  }
}

TEST(CellStats, AddAllIsBitIdenticalToAddingOneByOne) {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> nd(-2e-7, 5e-7);
  std::vector<double> x(1000);
  for (auto& v : x) v = nd(rng);
  x[3] = -0.0;
  x[450] = 0.0;
  x[700] = 0x1p600;  // x^2 beyond 2^1200 overflows: that chunk goes value by value
  CellStats one_by_one, batched;
  for (double v : x) one_by_one.add(v);
  for (std::size_t i = 0; i < x.size(); i += 64) {
    batched.add_all(std::span<const double>(x).subspan(i, std::min<std::size_t>(64, x.size() - i)));
  }
  EXPECT_EQ(batched.n, one_by_one.n);
  EXPECT_EQ(batched.sum.canonical_digits(), one_by_one.sum.canonical_digits());
  EXPECT_EQ(batched.sum_sq.canonical_digits(), one_by_one.sum_sq.canonical_digits());
  EXPECT_EQ(batched.sum_cube.canonical_digits(), one_by_one.sum_cube.canonical_digits());
  EXPECT_EQ(batched.sum_fourth.canonical_digits(), one_by_one.sum_fourth.canonical_digits());
  EXPECT_TRUE(bit_equal(batched.min, one_by_one.min));
  EXPECT_TRUE(bit_equal(batched.max, one_by_one.max));
  EXPECT_EQ(batched.sketch.positive().counts, one_by_one.sketch.positive().counts);
  EXPECT_EQ(batched.sketch.negative().counts, one_by_one.sketch.negative().counts);
  EXPECT_EQ(batched.sketch.zeros(), one_by_one.sketch.zeros());
  EXPECT_EQ(batched.sum_sq.non_finite_flags(), one_by_one.sum_sq.non_finite_flags());
}

TEST(CellStats, StandardErrorsMatchTheClosedForms) {
  // 1..5 (shifted by c): mean_stderr = sqrt(s^2 / n) = sqrt(0.5); m4 = 34/5, s^2 = 5/2, so
  // SE(s^2) = sqrt((m4 - s^4 (n - 3) / (n - 1)) / n) = sqrt(0.735).
  for (double c : {0.0, -7.0, 1e3}) {
    CellStats s;
    for (double x : {1.0, 2.0, 3.0, 4.0, 5.0}) s.add(x + c);
    // A mean 630 standard deviations away costs x^3 and x^4 about 630^4 2^-53 of relative
    // accuracy in the central moment: 2e-5.
    const double tolerance = c == 1e3 ? 1e-4 : 1e-14;
    EXPECT_NEAR(s.mean_stderr(), std::sqrt(0.5), 1e-15) << c;
    EXPECT_NEAR(s.variance_stderr(), std::sqrt(0.735), tolerance * std::sqrt(0.735)) << c;
  }
  // Too far from zero for two digits: refused as NaN, not served; equal values have SE 0.
  CellStats far;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0}) far.add(x + 1e6);
  EXPECT_TRUE(std::isnan(far.variance_stderr()));
  CellStats same;
  for (int k = 0; k < 10; ++k) same.add(3.25);
  EXPECT_EQ(same.variance_stderr(), 0.0);
  EXPECT_EQ(same.mean_stderr(), 0.0);
  // Too few values: NaN.
  CellStats three;
  for (double x : {1.0, 2.0, 4.0}) three.add(x);
  EXPECT_TRUE(std::isnan(three.variance_stderr()));
  EXPECT_FALSE(std::isnan(three.mean_stderr()));
  // Normal values: SE(s^2) -> sigma^2 sqrt(2 / (n - 1)).
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd(0.5, 2.0);
  CellStats normal;
  for (int k = 0; k < 100000; ++k) normal.add(nd(rng));
  EXPECT_NEAR(normal.variance_stderr(), 4.0 * std::sqrt(2.0 / 99999.0),
              0.02 * 4.0 * std::sqrt(2.0 / 99999.0));
}

TEST(CellStats, VarianceIntervalMatchesBonettsClosedFormAndLeansUp) {
  // 1..5: s^2 = 5/2, m2 = 2, m4 = 34/5, g2 = 34/20 - 3 = -1.3, G2 = (6 g2 + 6) 4 / 6 = -1.2, so
  // k = 1.8; c = 5 / (5 - 1.96), se = c sqrt((1.8 - 2/5) / 4), t = t_{0.975, 4} = 2.7764.
  CellStats s;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0}) s.add(x);
  const double c = 5.0 / (5.0 - 1.959963984540054);
  const double se = c * std::sqrt((1.8 - 0.4) / 4.0);
  double lower = 0.0, upper = 0.0;
  s.variance_interval(lower, upper);
  EXPECT_NEAR(lower, c * 2.5 * std::exp(-2.7764 * se), 1e-4 * lower);
  EXPECT_NEAR(upper, c * 2.5 * std::exp(2.7764 * se), 1e-4 * upper);
  // Normal values, large n: s^2 exp(-+ 1.96 sqrt(2 / (n - 1))) to first order, and the interval
  // reaches further up than down (the log scale), where variance +- 1.96 SE is symmetric.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd(0.5, 2.0);
  CellStats normal;
  for (int k = 0; k < 100000; ++k) normal.add(nd(rng));
  normal.variance_interval(lower, upper);
  const double v = normal.variance(), w = 1.959963984540054 * std::sqrt(2.0 / 99999.0);
  EXPECT_NEAR(lower, v * std::exp(-w), 0.05 * w * v);
  EXPECT_NEAR(upper, v * std::exp(w), 0.05 * w * v);
  EXPECT_GT(upper - v, v - lower);
  // Equal values: [0, 0]; fewer than four, or too far from zero for the fourth moment: NaN.
  CellStats same;
  for (int k = 0; k < 10; ++k) same.add(3.25);
  same.variance_interval(lower, upper);
  EXPECT_EQ(lower, 0.0);
  EXPECT_EQ(upper, 0.0);
  CellStats three, far;
  for (double x : {1.0, 2.0, 4.0}) three.add(x);
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0}) far.add(x + 1e6);
  for (const CellStats* cell : {&three, &far}) {
    cell->variance_interval(lower, upper);
    EXPECT_TRUE(std::isnan(lower) && std::isnan(upper)) << cell->n;
  }
}

TEST(MomentSums, RemoveUndoesMergeExactly) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> nd(1e-7, 1e-8);
  MomentSums a, b;
  for (int k = 0; k < 300; ++k) a.add(nd(rng));
  for (int k = 0; k < 100; ++k) b.add(nd(rng) * 1e3);
  MomentSums both = a;
  both.merge(b);
  both.remove(b);
  EXPECT_EQ(both.n, a.n);
  EXPECT_EQ(both.sum.canonical_digits(), a.sum.canonical_digits());
  EXPECT_EQ(both.sum_sq.canonical_digits(), a.sum_sq.canonical_digits());
  EXPECT_TRUE(bit_equal(both.variance(), a.variance()));
  // The same variance as CellStats over the same values.
  CellStats c;
  MomentSums m;
  for (double x : {0.5, -1.25, 3.0, 1e-3}) {
    c.add(x);
    m.add(x);
  }
  EXPECT_TRUE(bit_equal(m.variance(), c.variance()));
}

TEST(Statistics, SlopeThroughOriginRecoversALinearLaw) {
  // v = 3e-4 t exactly, plus an entry with count < 2 that must be ignored.
  std::vector<double> t = {0.0, 1.0, 2.0, 3.0, 4.0}, v = {0.0, 3e-4, 6e-4, 9e-4, 5.0};
  std::vector<std::int64_t> c = {5, 5, 5, 5, 1};
  const SlopeFit fit = fit_slope_through_origin(t, v, c);
  EXPECT_NEAR(fit.slope, 3e-4, 1e-18);
  EXPECT_NEAR(fit.standard_error, 0.0, 1e-19);  // an exact line
  EXPECT_EQ(fit.samples, 3);                    // t = 0 and the count-1 entry left out
  EXPECT_EQ(fit.t_min, 1.0);
  EXPECT_EQ(fit.t_max, 3.0);
  c = {1, 1, 1, 1, 1};
  const SlopeFit none = fit_slope_through_origin(t, v, c);
  EXPECT_EQ(none.slope, 0.0);
  EXPECT_EQ(none.samples, 0);
  EXPECT_TRUE(std::isnan(none.standard_error));
}

TEST(Statistics, SlopeStandardErrorMatchesTheClosedForm) {
  // v = (1, 2, 4) at t = (1, 2, 3): slope 17/14, residuals (-3, -6, 5)/14, so
  // SE^2 = (70/196) / ((3 - 1) * 14) = 5/392.
  const SlopeFit fit = fit_slope_through_origin({1.0, 2.0, 3.0}, {1.0, 2.0, 4.0}, {2, 2, 2});
  EXPECT_NEAR(fit.slope, 17.0 / 14.0, 1e-15);
  EXPECT_NEAR(fit.standard_error, std::sqrt(5.0 / 392.0), 1e-15);
  // One sample: a slope, but no error estimate.
  const SlopeFit one = fit_slope_through_origin({2.0}, {3.0}, {4});
  EXPECT_EQ(one.slope, 1.5);
  EXPECT_TRUE(std::isnan(one.standard_error));
}

}  // namespace
}  // namespace nhsim

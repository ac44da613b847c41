// nhsim/dmath.hpp and nhsim/table_log.hpp: CPU-independent elementary functions. Whether they
// give the same bits with glibc's FMA/AVX2 code paths disabled is tested end to end
// (tests/e2e/cpu_independence_test.cpp); here, that they are the functions they claim to be.
#include "nhsim/dmath.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "nhsim/table_log.hpp"

namespace nhsim {
namespace {

/// The distance in units in the last place of `expected`.
double ulps(double actual, double expected) {
  const double ulp = std::nextafter(std::abs(expected), std::numeric_limits<double>::infinity()) -
                     std::abs(expected);
  return std::abs(actual - expected) / ulp;
}

// SLEEF's u10 functions promise 1 ulp; glibc's are within 1 ulp of the true value as well, so
// the two are at most 2 ulp apart.
TEST(Dmath, AgreesWithGlibcToTwoUlp) {
  std::mt19937_64 g(49);
  std::uniform_real_distribution<double> angle(-50.0, 50.0), exponent(-700.0, 700.0),
      mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> binade(-1000, 1000);
  for (int k = 0; k < 100000; ++k) {
    const double a = angle(g), x = exponent(g), y = std::ldexp(mantissa(g), binade(g));
    EXPECT_LE(ulps(dmath::sin(a), std::sin(a)), 2.0) << a;
    EXPECT_LE(ulps(dmath::cos(a), std::cos(a)), 2.0) << a;
    const auto [s, c] = dmath::sincos(a);
    EXPECT_LE(ulps(s, std::sin(a)), 2.0) << a;
    EXPECT_LE(ulps(c, std::cos(a)), 2.0) << a;
    EXPECT_LE(ulps(dmath::exp(x), std::exp(x)), 2.0) << x;
    EXPECT_LE(ulps(dmath::log(y), std::log(y)), 2.0) << y;
    EXPECT_LE(ulps(dmath::atan2(a, x), std::atan2(a, x)), 2.0) << a << " " << x;
    EXPECT_LE(ulps(dmath::pow(y, a / 50.0), std::pow(y, a / 50.0)), 2.0) << y << " " << a;
  }
}

// The complex step: Im f(a + i e) / e = f'(a) to round-off, e = 1e-20 (nhsim/complex_step.hpp).
TEST(Dmath, ComplexFunctionsGiveTheComplexStepDerivative) {
  const double e = 1e-20;
  for (double a : {-2.5, -0.3, 0.7, 1.9}) {
    const std::complex<double> z(a, e);
    EXPECT_NEAR(dmath::sin(z).imag() / e, std::cos(a), 1e-15) << a;
    EXPECT_NEAR(dmath::cos(z).imag() / e, -std::sin(a), 1e-15) << a;
    EXPECT_NEAR(dmath::tan(z).imag() / e, 1.0 / (std::cos(a) * std::cos(a)), 1e-14) << a;
    EXPECT_NEAR(dmath::exp(z).imag() / e, std::exp(a), 1e-14) << a;
    EXPECT_EQ(dmath::sin(z).real(), dmath::sincos(a).sin);
    if (a > 0) {
      EXPECT_NEAR(dmath::log(z).imag() / e, 1.0 / a, 1e-14) << a;
      EXPECT_NEAR(dmath::sqrt(z).imag() / e, 0.5 / std::sqrt(a), 1e-15) << a;
      EXPECT_NEAR(dmath::pow(z, std::complex<double>(2.5)).imag() / e, 2.5 * std::pow(a, 1.5),
                  1e-13)
          << a;
    }
  }
  // Away from the complex step, the same values as libstdc++'s functions.
  const std::complex<double> w(0.8, -1.3);
  for (const auto& [mine, theirs] :
       {std::pair{dmath::sin(w), std::sin(w)}, std::pair{dmath::cos(w), std::cos(w)},
        std::pair{dmath::tan(w), std::tan(w)}, std::pair{dmath::exp(w), std::exp(w)},
        std::pair{dmath::log(w), std::log(w)}, std::pair{dmath::sqrt(w), std::sqrt(w)},
        std::pair{dmath::pow(w, w), std::pow(w, w)}}) {
    EXPECT_NEAR(std::abs(mine - theirs), 0.0, 1e-15 * std::abs(theirs));
  }
  EXPECT_EQ(dmath::sqrt(std::complex<double>(-4.0, 0.0)), std::complex<double>(0.0, 2.0));
}

// The sketch's log: within 4 ulp of glibc's (measured: 3), or 2^-58 absolute near 1 (measured:
// 1.7e-18), exactly 0 at 1, over the whole positive range including subnormals.
TEST(TableLog, IsLogToFourUlp) {
  const TableLog table_log;
  EXPECT_EQ(table_log(1.0), 0.0);
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-1074, 1023);
  for (int k = 0; k < 1000000; ++k) {
    const double x = std::ldexp(mantissa(g), exponent(g));
    if (x == 0.0 || std::isinf(x)) continue;
    const double expected = std::log(x);
    EXPECT_TRUE(ulps(table_log(x), expected) <= 2.0 || std::abs(table_log(x) - expected) <= 0x1p-60)
        << std::hexfloat << x << ": " << table_log(x) << " against " << expected;
  }
  std::uniform_real_distribution<double> near_one(0.99, 1.01);
  for (int k = 0; k < 1000000; ++k) {
    const double x = near_one(g);
    EXPECT_TRUE(ulps(table_log(x), std::log(x)) <= 4.0 ||
                std::abs(table_log(x) - std::log(x)) <= 0x1p-58)
        << std::hexfloat << x;
  }
  for (double x : {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), 1.0 - 0x1p-53, 1.0 + 0x1p-52, 2.0}) {
    EXPECT_LE(ulps(table_log(x), std::log(x)), 4.0) << std::hexfloat << x;
  }
}

}  // namespace
}  // namespace nhsim

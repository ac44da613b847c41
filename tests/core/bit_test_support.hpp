// Helpers of the core tests that compare results bit for bit: random values that exercise the
// floating-point corner cases, and bit equality.
#pragma once

#include <cmath>
#include <cstring>
#include <random>

namespace nhsim::test {

/// A random value over 10^-8 .. 10^8 of either sign, one in 16 a signed zero.
inline double wide_value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (g() % 16 == 0) return g() % 2 == 0 ? 0.0 : -0.0;
  return u(g) * std::pow(10.0, 8.0 * u(g));
}

/// The same bits (so +0 and -0 differ, and a NaN equals only itself bit for bit).
inline bool bit_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace nhsim::test

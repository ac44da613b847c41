// lu_inverse8 (core/src/lanes/lane_lu.hpp): the inverse of an 8 x 8 matrix in each SIMD lane has
// the bits of SimplifiedNewton<8>'s, Eigen's PartialPivLU<Matrix<double, 8, 8>>::inverse(), for
// matrices of every kind: well and badly conditioned, values over 16 decades with signed zeros,
// ties between pivot candidates, and exactly singular ones. Here in the build's registers; the
// kernels' other instruction sets are checked through whole trajectories (lanes_test.cpp).
#include "lanes/lane_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

namespace nhsim {
namespace {

using Mat = Eigen::Matrix<double, 8, 8>;

/// Random values over 10^-8 .. 10^8 of either sign, one in 16 a signed zero.
double wide(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (g() % 16 == 0) return g() % 2 == 0 ? 0.0 : -0.0;
  return u(g) * std::pow(10.0, 8.0 * u(g));
}

/// The same bits, or both NaN (a singular matrix's NaNs may carry another payload).
bool same(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

/// Mismatching entries of lu_inverse8<W> against Eigen over `trials` batches of W matrices drawn
/// by `draw` (one per lane).
template <int W>
int mismatches(int trials, const std::function<Mat(std::mt19937_64&)>& draw) {
  using D = typename Lanes<W>::D;
  std::mt19937_64 g(W);
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Mat m[W];
    D a[64], inv[64];
    for (int l = 0; l < W; ++l) {
      m[l] = draw(g);
      for (int e = 0; e < 64; ++e) a[e][l] = m[l].data()[e];  // column-major, as the kernel takes
    }
    lu_inverse8<W>(a, inv);
    for (int l = 0; l < W; ++l) {
      Eigen::PartialPivLU<Mat> lu;
      lu.compute(m[l]);
      const Mat expected = lu.inverse();  // SimplifiedNewton<8>::invert_factorisation
      for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) bad += same(inv[8 * i + j][l], expected(i, j)) ? 0 : 1;
      }
    }
  }
  return bad;
}

template <int W>
void expect_eigens_bits() {
  SCOPED_TRACE(W);
  // Dense, entries of one scale.
  EXPECT_EQ(mismatches<W>(500,
                          [](std::mt19937_64& g) {
                            std::uniform_real_distribution<double> u(-1.0, 1.0);
                            Mat m;
                            for (int e = 0; e < 64; ++e) m.data()[e] = u(g);
                            return m;
                          }),
            0);
  // Entries over 16 decades, signed zeros among them.
  EXPECT_EQ(mismatches<W>(500,
                          [](std::mt19937_64& g) {
                            Mat m;
                            for (int e = 0; e < 64; ++e) m.data()[e] = wide(g);
                            return m;
                          }),
            0);
  // The Newton Jacobians' kind: the identity plus a small coupling.
  EXPECT_EQ(mismatches<W>(500,
                          [](std::mt19937_64& g) {
                            std::uniform_real_distribution<double> u(-0.05, 0.05);
                            Mat m = Mat::Identity();
                            for (int e = 0; e < 64; ++e) m.data()[e] += u(g);
                            return m;
                          }),
            0);
  // Small integers: ties between pivot candidates (the first row wins), exact cancellations.
  EXPECT_EQ(mismatches<W>(500,
                          [](std::mt19937_64& g) {
                            Mat m;
                            for (int e = 0; e < 64; ++e)
                              m.data()[e] = static_cast<double>(g() % 5) - 2.0;
                            return m;
                          }),
            0);
  // Exactly singular: a zero column, so a zero pivot that is neither swapped nor divided by.
  EXPECT_EQ(mismatches<W>(100,
                          [](std::mt19937_64& g) {
                            std::uniform_real_distribution<double> u(-1.0, 1.0);
                            Mat m;
                            for (int e = 0; e < 64; ++e) m.data()[e] = u(g);
                            m.col(static_cast<Eigen::Index>(g() % 8)).setZero();
                            return m;
                          }),
            0);
}

TEST(LaneLu, InverseIsEigensBitForBitAtEveryWidth) {
  expect_eigens_bits<2>();
  expect_eigens_bits<4>();
  expect_eigens_bits<8>();
}

}  // namespace
}  // namespace nhsim

// lu_inverse (core/src/lanes/lane_lu.hpp): the inverse of an N x N matrix in each SIMD lane has
// the bits of SimplifiedNewton<N>'s, Eigen's PartialPivLU<Matrix<double, N, N>>::inverse(), for
// the sizes the lane kernels use (8: i_dla; 2: spark2), the discrete gradient methods' 13 and the
// sizes between, and matrices of every kind: well and badly conditioned, values over 16 decades
// with signed zeros, ties between pivot candidates, and exactly singular ones. Here in the build's
// registers; the kernels' other instruction sets are checked through whole trajectories
// (lanes_test.cpp).
#include "lanes/lane_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <random>

namespace nhsim {
namespace {

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

/// The kinds of matrix drawn.
enum class Kind {
  kDense,     ///< entries of one scale
  kWide,      ///< entries over 16 decades, signed zeros among them
  kNewton,    ///< the identity plus a small coupling: the Newton Jacobians' kind
  kIntegers,  ///< small integers: ties between pivot candidates (the first wins), cancellations
  kSingular,  ///< a zero column: a zero pivot, neither swapped nor divided by
};

template <int N>
Eigen::Matrix<double, N, N> draw(Kind kind, std::mt19937_64& g) {
  using Mat = Eigen::Matrix<double, N, N>;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat m;
  for (int e = 0; e < N * N; ++e) {
    switch (kind) {
      case Kind::kWide:
        m.data()[e] = wide(g);
        break;
      case Kind::kIntegers:
        m.data()[e] = static_cast<double>(g() % 5) - 2.0;
        break;
      case Kind::kNewton:
        m.data()[e] = 0.05 * u(g);
        break;
      default:
        m.data()[e] = u(g);
    }
  }
  if (kind == Kind::kNewton) m += Mat::Identity();
  if (kind == Kind::kSingular) m.col(static_cast<Eigen::Index>(g() % N)).setZero();
  return m;
}

/// Mismatching entries of lu_inverse<W, N> against Eigen over `trials` batches of W matrices of
/// `kind` (one per lane).
template <int W, int N>
int mismatches(Kind kind, int trials) {
  using D = typename Lanes<W>::D;
  using Mat = Eigen::Matrix<double, N, N>;
  std::mt19937_64 g(static_cast<std::uint64_t>(100 * N + W));
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Mat m[W];
    D a[N * N], inv[N * N];
    for (int l = 0; l < W; ++l) {
      m[l] = draw<N>(kind, g);
      for (int e = 0; e < N * N; ++e) a[e][l] = m[l].data()[e];  // column-major, as it takes
    }
    lu_inverse<W, N>(a, inv);
    for (int l = 0; l < W; ++l) {
      Eigen::PartialPivLU<Mat> lu;
      lu.compute(m[l]);
      const Mat expected = lu.inverse();  // SimplifiedNewton<N>::invert_factorisation
      for (int i = 0; i < N; ++i) {
        for (int j = 0; j < N; ++j) bad += same(inv[N * i + j][l], expected(i, j)) ? 0 : 1;
      }
    }
  }
  return bad;
}

template <int N>
void expect_eigens_bits() {
  for (const Kind kind :
       {Kind::kDense, Kind::kWide, Kind::kNewton, Kind::kIntegers, Kind::kSingular}) {
    SCOPED_TRACE(static_cast<int>(kind));
    const int trials = kind == Kind::kSingular ? 50 : 200;
    EXPECT_EQ((mismatches<2, N>(kind, trials)), 0) << "W = 2, N = " << N;
    EXPECT_EQ((mismatches<4, N>(kind, trials)), 0) << "W = 4, N = " << N;
    EXPECT_EQ((mismatches<8, N>(kind, trials)), 0) << "W = 8, N = " << N;
  }
}

TEST(LaneLu, InverseIsEigensBitForBitAtEveryWidth) {
  expect_eigens_bits<8>();
  expect_eigens_bits<13>();
  expect_eigens_bits<2>();  // spark2
  // Other panel splits: one short panel of 1, 2 and 3 rows, and a single panel.
  expect_eigens_bits<5>();
  expect_eigens_bits<6>();
  expect_eigens_bits<7>();
  expect_eigens_bits<3>();
  expect_eigens_bits<4>();
}

}  // namespace
}  // namespace nhsim

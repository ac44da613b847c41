// inverse_in_eigen_order (nhsim/eigen_order_inverse.hpp): the inverse of an N x N matrix, on
// plain doubles (SimplifiedNewton's scalar path) and in each SIMD lane (the lane kernels), has the
// bits of Eigen's PartialPivLU<Matrix<double, N, N>>::inverse(), for the sizes the implicit
// methods use, every fixed size from 2 to 16 (2: spark2; 8: i_dla; 13: the reduced methods of the
// chaotic system), and matrices of every kind: well and badly conditioned, values
// over 16 decades with signed zeros, ties between pivot candidates, and exactly singular ones.
// Here in the build's registers; the kernels' other instruction sets are checked through whole
// trajectories (lanes_test.cpp).
#include "nhsim/eigen_order_inverse.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <utility>

#include "bit_test_support.hpp"
#include "lanes/chaotic_quartic_kernels.hpp"

namespace nhsim {
namespace {

/// The same bits, or both NaN (a singular matrix's NaNs may carry another payload).
bool same(double a, double b) { return test::bit_equal(a, b) || (std::isnan(a) && std::isnan(b)); }

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
        m.data()[e] = test::wide_value(g);
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

/// Inverse by Eigen, as SimplifiedNewton formed it before inverse_in_eigen_order. Not inlined
/// into its four callers per size: one copy compiles in a quarter of the time.
template <int N>
[[gnu::noinline]] Eigen::Matrix<double, N, N> eigens(const Eigen::Matrix<double, N, N>& m) {
  Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu;
  lu.compute(m);
  return lu.inverse();
}

/// Mismatching entries of inverse_in_eigen_order on plain doubles against Eigen over `trials`
/// matrices of `kind`.
template <int N>
int scalar_mismatches(Kind kind, int trials) {
  using Mat = Eigen::Matrix<double, N, N>;
  std::mt19937_64 g(static_cast<std::uint64_t>(100 * N));
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const Mat m = draw<N>(kind, g);
    Mat a = m, inv;
    inverse_in_eigen_order<ScalarElements, N>(a.data(), inv.data());
    const Mat expected = eigens<N>(m);
    for (int e = 0; e < N * N; ++e) bad += same(inv.data()[e], expected.data()[e]) ? 0 : 1;
  }
  return bad;
}

/// The same for W lanes, W matrices at a time (one per lane).
template <int W, int N>
int lane_mismatches(Kind kind, int trials) {
  using D = typename Lanes<W>::D;
  using Mat = Eigen::Matrix<double, N, N>;
  std::mt19937_64 g(static_cast<std::uint64_t>(100 * N + W));
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Mat m[W];
    D a[N * N], inv[N * N];
    for (int l = 0; l < W; ++l) {
      m[l] = draw<N>(kind, g);
      for (int e = 0; e < N * N; ++e) a[e][l] = m[l].data()[e];
    }
    inverse_in_eigen_order<Lanes<W>, N>(a, inv);
    for (int l = 0; l < W; ++l) {
      const Mat expected = eigens<N>(m[l]);
      for (int e = 0; e < N * N; ++e) bad += same(inv[e][l], expected.data()[e]) ? 0 : 1;
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
    EXPECT_EQ(scalar_mismatches<N>(kind, 4 * trials), 0) << "scalar, N = " << N;
    EXPECT_EQ((lane_mismatches<2, N>(kind, trials)), 0) << "W = 2, N = " << N;
    EXPECT_EQ((lane_mismatches<4, N>(kind, trials)), 0) << "W = 4, N = " << N;
    EXPECT_EQ((lane_mismatches<8, N>(kind, trials)), 0) << "W = 8, N = " << N;
  }
}

template <int... N>
void expect_eigens_bits_for(std::integer_sequence<int, N...>) {
  (expect_eigens_bits<N + 2>(), ...);
}

TEST(EigenOrderInverse, IsEigensPartialPivLuInverseBitForBitForEveryFixedSize) {
  expect_eigens_bits_for(std::make_integer_sequence<int, 15>());  // N = 2 .. 16
}

}  // namespace
}  // namespace nhsim

// eigen_packet_sum (core/src/lanes/chaotic_quartic_kernels.hpp): the lane kernels' sum of N terms
// in the order Eigen 3.4 reduces a fixed-size expression of N doubles in the library's SSE2 build.
// Checked here bit for bit, in each of W lanes, against the reductions the kernels reproduce: a
// dot product and a squared norm (dot7, the Broyden update's |dxp|^2 and dxp.dx) and the
// coefficients of a matrix's transposed lazy product with a vector (the Broyden update's
// dxp^T J^-1), for N = 7 and 15, the sizes the kernels use, at both 16-byte alignments of the
// operands. Here in the build's registers; the kernels' instruction sets are checked through
// whole trajectories (lanes_test.cpp).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "bit_test_support.hpp"
#include "lanes/chaotic_quartic_kernels.hpp"

namespace nhsim {
namespace {

using test::bit_equal;
using test::wide_value;

/// The operands of one lane; Pad (0 or 1) moves each by 8 bytes, so that each is tried at both
/// 16-byte alignments.
template <int N, int Pad>
struct alignas(16) Operands {
  double pad[Pad + 1];
  Eigen::Matrix<double, N, 1> a, b;
  Eigen::Matrix<double, N, N> m;
};

/// Mismatches between Eigen's reductions of `trials` random operands and eigen_packet_sum<N>
/// over W lanes.
template <int W, int N, int Pad>
int mismatches(int trials) {
  using D = typename Lanes<W>::D;
  std::mt19937_64 g(static_cast<std::uint64_t>(1000 * N + 10 * W + Pad));
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Operands<N, Pad> o[W];
    for (int l = 0; l < W; ++l) {
      for (int i = 0; i < N; ++i) {
        o[l].a(i) = wide_value(g);
        o[l].b(i) = wide_value(g);
      }
      for (int e = 0; e < N * N; ++e) o[l].m.data()[e] = wide_value(g);
    }
    D e[N], sum;
    for (int i = 0; i < N; ++i) {
      for (int l = 0; l < W; ++l) e[i][l] = o[l].a(i) * o[l].b(i);
    }
    eigen_packet_sum<N>(e, sum);
    for (int l = 0; l < W; ++l) bad += bit_equal(sum[l], o[l].a.dot(o[l].b)) ? 0 : 1;
    for (int i = 0; i < N; ++i) {
      for (int l = 0; l < W; ++l) e[i][l] = o[l].a(i) * o[l].a(i);
    }
    eigen_packet_sum<N>(e, sum);
    for (int l = 0; l < W; ++l) bad += bit_equal(sum[l], o[l].a.squaredNorm()) ? 0 : 1;
    Eigen::Matrix<double, N, 1> row[W];
    for (int l = 0; l < W; ++l) row[l].noalias() = o[l].m.transpose().lazyProduct(o[l].a);
    for (int j = 0; j < N; ++j) {
      for (int i = 0; i < N; ++i) {
        for (int l = 0; l < W; ++l) e[i][l] = o[l].m(i, j) * o[l].a(i);
      }
      eigen_packet_sum<N>(e, sum);
      for (int l = 0; l < W; ++l) bad += bit_equal(sum[l], row[l](j)) ? 0 : 1;
    }
  }
  return bad;
}

template <int N>
void expect_eigens_order() {
  EXPECT_EQ((mismatches<2, N, 0>(2000)), 0) << "N = " << N;
  EXPECT_EQ((mismatches<2, N, 1>(2000)), 0) << "N = " << N << ", moved by 8 bytes";
  EXPECT_EQ((mismatches<4, N, 0>(1000)), 0) << "N = " << N << ", W = 4";
}

TEST(EigenPacketSum, IsEigensReductionOrderBitForBit) {
  expect_eigens_order<7>();
  expect_eigens_order<15>();
}

/// A sum whose order shows: 1 + 2^-53 + ... rounds differently in another grouping.
TEST(EigenPacketSum, GroupsThePacketsAsATree) {
  using D = Lanes<2>::D;
  D e[7];
  for (int i = 0; i < 7; ++i) e[i] = D{} + 0.0;
  e[0] = D{} + 1.0;
  e[2] = D{} + 0x1p-53;
  e[4] = D{} + 0x1p-53;
  D sum;
  eigen_packet_sum<7>(e, sum);
  // e0 + (e2 + e4) = 1 + 2^-52 exactly; (e0 + e2) + e4 would be 1 (ties to even, twice).
  EXPECT_EQ(sum[0], 1.0 + 0x1p-52);
}

}  // namespace
}  // namespace nhsim

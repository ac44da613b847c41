// lazy_product (nhsim/lazy_product.hpp): the bits of Eigen's y.noalias() = A.lazyProduct(x),
// for every size the Newton iteration uses and both placements of y (16-byte aligned or not),
// over values that span 16 decades and include signed zeros, in the build's registers and in
// AVX2's.
#include "nhsim/lazy_product.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <new>
#include <random>
#include <utility>

#include "bit_test_support.hpp"

namespace nhsim {
namespace {

/// Mismatching results of lazy_product<N> (in AVX2 registers or not) against Eigen over `trials`
/// random products, with y at a 16-byte aligned address and (odd N: no Eigen alignment
/// requirement) 8 bytes past one.
template <int N>
int mismatches(bool avx2, int trials) {
  using Vec = Eigen::Matrix<double, N, 1>;
  using Mat = Eigen::Matrix<double, N, N>;
  std::mt19937_64 g(N);
  alignas(16) unsigned char eigen_buffer[sizeof(Vec) + 16], ours_buffer[sizeof(Vec) + 16];
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Mat a;
    Vec x;
    for (int i = 0; i < N * N; ++i) a.data()[i] = test::wide_value(g);
    for (int i = 0; i < N; ++i) x(i) = test::wide_value(g);
    for (const int offset : {0, 8}) {
      if (N % 2 == 0 && offset != 0) continue;
      Vec* eigen = new (eigen_buffer + offset) Vec;
      Vec* ours = new (ours_buffer + offset) Vec;
      eigen->noalias() = a.lazyProduct(x);
      detail::lazy_product<N>(avx2, a, x, *ours);
      if (std::memcmp(eigen->data(), ours->data(), sizeof(Vec)) != 0) ++bad;
    }
  }
  return bad;
}

template <int... N>
int mismatches_over(bool avx2, std::integer_sequence<int, N...>) {
  return (mismatches<N + 1>(avx2, 300) + ...);
}

TEST(LazyProduct, TheBitsOfEigensLazyProductForEverySizeUpTo32) {
  EXPECT_EQ(mismatches_over(false, std::make_integer_sequence<int, 32>{}), 0);
}

TEST(LazyProduct, TheSameBitsInAvx2Registers) {
  if (!detail::kCpuHasAvx2) GTEST_SKIP() << "this CPU has no AVX2";
  EXPECT_EQ(mismatches_over(true, std::make_integer_sequence<int, 32>{}), 0);
}

TEST(LazyProduct, ReplaysTheSizesOfTheChaoticQuarticSystem) {
  // The reduced chaotic quartic system's 13 unknowns (n = 3) and 4n + 1 for other n: where the
  // replay is not taken, lazy_product is Eigen's own product and gains nothing.
  EXPECT_TRUE(detail::lazy_product_replayed<13>());
  EXPECT_TRUE(detail::lazy_product_replayed<9>());
  EXPECT_TRUE(detail::lazy_product_replayed<21>());
  EXPECT_FALSE(detail::lazy_product_replayed<Eigen::Dynamic>());
}

}  // namespace
}  // namespace nhsim

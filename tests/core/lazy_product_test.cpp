// lazy_product (nhsim/lazy_product.hpp): the bits of Eigen's y.noalias() = A.lazyProduct(x) for
// a 16-byte aligned y, for every size the Newton iteration uses, with y aligned and 8 bytes past
// an aligned address, over values that span 16 decades and include signed zeros, in the build's
// registers and in AVX2's.
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

/// a and x of values spanning 16 decades, signed zeros included (test::wide_value).
template <int N>
void fill_wide(std::mt19937_64& g, Eigen::Matrix<double, N, N>& a, Eigen::Matrix<double, N, 1>& x) {
  for (int i = 0; i < N * N; ++i) a.data()[i] = test::wide_value(g);
  for (int i = 0; i < N; ++i) x(i) = test::wide_value(g);
}

/// Mismatching results of lazy_product<N> (in AVX2 registers or not) against Eigen's with y
/// 16-byte aligned, over `trials` random products, with our y at a 16-byte aligned address and
/// (odd N: no Eigen alignment requirement) 8 bytes past one, where Eigen's own bits would differ.
template <int N>
int mismatches(bool avx2, int trials) {
  using Vec = Eigen::Matrix<double, N, 1>;
  using Mat = Eigen::Matrix<double, N, N>;
  std::mt19937_64 g(N);
  alignas(16) unsigned char ours_buffer[sizeof(Vec) + 16];
  alignas(16) Vec eigen;
  int bad = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Mat a;
    Vec x;
    fill_wide<N>(g, a, x);
    eigen.noalias() = a.lazyProduct(x);
    for (const int offset : {0, 8}) {
      if (N % 2 == 0 && offset != 0) continue;
      Vec* ours = new (ours_buffer + offset) Vec;
      detail::lazy_product<N>(avx2, a, x, *ours);
      if (std::memcmp(eigen.data(), ours->data(), sizeof(Vec)) != 0) ++bad;
    }
  }
  return bad;
}

/// Eigen's own product into a y 8 bytes past a 16-byte aligned address differs from the aligned
/// one for the 13 unknowns of the chaotic quartic system (what lazy_product no longer follows):
/// the number of such products out of `trials`.
int eigen_unaligned_differences(int trials) {
  using Vec = Eigen::Matrix<double, 13, 1>;
  std::mt19937_64 g(13);
  alignas(16) unsigned char buffer[sizeof(Vec) + 16];
  alignas(16) Vec aligned;
  Vec* unaligned = new (buffer + 8) Vec;
  int differ = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Eigen::Matrix<double, 13, 13> a;
    Vec x;
    fill_wide<13>(g, a, x);
    aligned.noalias() = a.lazyProduct(x);
    unaligned->noalias() = a.lazyProduct(x);
    if (std::memcmp(aligned.data(), unaligned->data(), sizeof(Vec)) != 0) ++differ;
  }
  return differ;
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

TEST(LazyProduct, WhereYLiesMattersToEigenButNotHere) {
  // The premise of the offset-8 cases above: without it they would test nothing.
  EXPECT_GT(eigen_unaligned_differences(300), 100);
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

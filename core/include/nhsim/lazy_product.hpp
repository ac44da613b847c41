// y = A x for a fixed-size square A with the bits of Eigen 3.4's `y.noalias() = A.lazyProduct(x)`
// for a 16-byte aligned y, wherever y lies, and faster: the simplified Newton iteration's product
// with its reused inverse Jacobian (newton.hpp), a third of a gonzalez step before this.
//
// Eigen evaluates that product (for the sizes below) a packet of two rows at a time: each packet
// a chain of N dependent additions over the columns, in order, one packet after the other, so
// the additions wait on each other. Here the rows advance together over the columns: every row
// gets the same operations in the same order, and the chains of different rows overlap. The row
// Eigen computes one coefficient at a time (the last of an odd N) is computed by Eigen's own
// expression for that coefficient. On a CPU with AVX2 the rows advance four to a register instead
// of two: each row's operations are the same scalar ones (no FMA: the target adds none and the
// build contracts none), so the bits are too (tests/core/lazy_product_test.cpp checks both).
//
// Where y lies does not matter here. Eigen, for an odd N, starts its packets at y's first 16-byte
// aligned coefficient: a y 8 bytes past an aligned address gets its first row alone and its last
// in a packet, and other roundings. Following Eigen there made a Newton method's results depend
// on the offset of its SimplifiedNewton inside the stepper object: adding a member to a method
// could change its trajectories (tests/core/newton_test.cpp now checks both placements).
#pragma once

#include <Eigen/Dense>

namespace nhsim {
namespace detail {

/// Whether Eigen assigns the lazy product of an N x N matrix and an N-vector to an N-vector by
/// the loop that lazy_product() replays: linear vectorised traversal in packets of two doubles,
/// not unrolled (Eigen/src/Core/AssignEvaluator.h). Any other case keeps Eigen's own evaluation.
template <int N>
constexpr bool lazy_product_replayed() {
  if constexpr (N == Eigen::Dynamic) {
    return false;
  } else {
    namespace ei = Eigen::internal;
    using Vec = Eigen::Matrix<double, N, 1>;
    using Src = Eigen::Product<Eigen::Matrix<double, N, N>, Vec, Eigen::LazyProduct>;
    using Traits = ei::copy_using_evaluator_traits<ei::evaluator<Vec>, ei::evaluator<Src>,
                                                   ei::assign_op<double, double>>;
    return int(Traits::Traversal) == int(Eigen::LinearVectorizedTraversal) &&
           int(Traits::Unrolling) == int(Eigen::NoUnrolling) &&
           ei::packet_traits<double>::size == 2;
  }
}

/// Rows [Begin, End) of y = a x, an even number of them, each summed over the columns in order
/// as Eigen sums a packet's rows: (a_i0 x_0), then a_ij x_j + the sum so far.
template <int N, int Begin, int End>
[[gnu::always_inline]] inline void packet_rows_body(const double* a, const double* x, double* y) {
  double sum[End - Begin];
  for (int i = Begin; i < End; ++i) sum[i - Begin] = a[i] * x[0];
  for (int j = 1; j < N; ++j) {
    const double xj = x[j];
    const double* column = a + N * j;
    for (int i = Begin; i < End; ++i) sum[i - Begin] = column[i] * xj + sum[i - Begin];
  }
  for (int i = Begin; i < End; ++i) y[i] = sum[i - Begin];
}

/// packet_rows_body() for the build's target (SSE2 on x86-64) and for AVX2.
template <int N, int Begin, int End>
[[gnu::noinline]] void packet_rows_baseline(const double* a, const double* x, double* y) {
  packet_rows_body<N, Begin, End>(a, x, y);
}
template <int N, int Begin, int End>
[[gnu::noinline, gnu::target("avx2")]] void packet_rows_avx2(const double* a, const double* x,
                                                             double* y) {
  packet_rows_body<N, Begin, End>(a, x, y);
}

/// Whether this CPU runs AVX2, read once at load time.
inline const bool kCpuHasAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

/// packet_rows_body() in AVX2 registers or the build's.
template <int N, int Begin, int End>
inline void packet_rows(bool avx2, const double* a, const double* x, double* y) {
  if (avx2) {
    packet_rows_avx2<N, Begin, End>(a, x, y);
  } else {
    packet_rows_baseline<N, Begin, End>(a, x, y);
  }
}

/// lazy_product() with the packet rows in AVX2 registers or not (`avx2` only where the CPU runs
/// it): the same bits either way.
template <int N>
inline void lazy_product(bool avx2, const Eigen::Matrix<double, N, N>& a,
                         const Eigen::Matrix<double, N, 1>& x, Eigen::Matrix<double, N, 1>& y) {
  if constexpr (!lazy_product_replayed<N>()) {
    y.noalias() = a.lazyProduct(x);
  } else {
    packet_rows<N, 0, N / 2 * 2>(avx2, a.data(), x.data(), y.data());
    if constexpr (N % 2 == 1) y(N - 1) = a.row(N - 1).transpose().cwiseProduct(x.col(0)).sum();
  }
}

}  // namespace detail

/// y = a x (a: N x N, column-major; x, y: length N; y must not alias x), bit for bit what
/// `y.noalias() = a.lazyProduct(x)` gives in this build for a 16-byte aligned y, wherever y lies.
template <int N>
inline void lazy_product(const Eigen::Matrix<double, N, N>& a, const Eigen::Matrix<double, N, 1>& x,
                         Eigen::Matrix<double, N, 1>& y) {
  detail::lazy_product<N>(detail::kCpuHasAvx2, a, x, y);
}

}  // namespace nhsim

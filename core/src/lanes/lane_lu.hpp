// Internal: the inverse of an N x N Jacobian (N <= 16) in each of W lanes, bit for bit what
// SimplifiedNewton<N> forms (core/include/nhsim/newton.hpp: lu_.compute(jac_), then
// inv_ = lu_.inverse()) in the library's build (SSE2, no FMA), as Eigen 3.4 evaluates it:
//  * PartialPivLU's unblocked_lu (Eigen/src/LU/PartialPivLU.h, every fixed size up to 16): for
//    k = 0..N-2, the pivot is the first row r >= k of largest |a(r, k)|; unless that is 0, rows k
//    and r are swapped (all N columns) and a(k+1.., k) is divided by a(k, k); then
//    a(r, c) -= a(r, k) a(k, c) for r, c > k. The last column is not searched.
//  * inverse() = solve(I): X = P I, then X = L^-1 X and X = U^-1 X by triangular_solve_matrix
//    (Eigen/src/Core/products/TriangularSolverMatrix.h) on the left, one block of N (the
//    fixed-size blocking's kc = N) in panels of max(mr, nr) = 4 rows (gebp_traits<double, double>
//    without FMA: mr = 4, nr = 4), the last one shorter. Within a panel each solved x_i updates
//    the panel's later rows, x_r -= x_i a(r, i) (the upper solve first scales x_i by 1 / a(i, i),
//    a product with the reciprocal). After a panel, the GEBP kernel updates all the rows still to
//    solve: x_r += -(((+0 + a(r, k0) x_k0) + a(r, k1) x_k1) + ...), over the panel's rows k in
//    increasing order. Every micro-kernel of gebp_kernel (GeneralBlockPanelKernel.h) sums so when
//    the depth, at most 4 here, is below its unrolling (8).
// lanes_test.cpp (LaneLu) checks the bits against Eigen's for matrices of every kind.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off.
#pragma once

#include "chaotic_quartic_kernels.hpp"

namespace {

/// inv = a^-1 of W lanes as SimplifiedNewton<N> forms it (see the file comment), for a fixed N up
/// to 16 (Eigen's unblocked LU; one block of the triangular solves). a: [N * N], column-major
/// (entry (r, c) at N c + r), overwritten by the LU factors; inv: [N * N], row-major (entry (i, j)
/// at N i + j), as the lanes store inverses. A singular a gives the non-finite entries Eigen's do.
template <int W, int N>
inline void lu_inverse(typename Lanes<W>::D* a, typename Lanes<W>::D* inv) {
  static_assert(N >= 2 && N <= 16, "Eigen factorises larger fixed sizes by blocks");
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  constexpr int kPanel = 4;  // max(mr, nr) of gebp_traits<double, double> in SSE2
  const auto at = [a](int r, int c) -> D& { return a[N * c + r]; };
  // sigma: which row of the identity each row of P I is, as the row swaps leave it.
  D sigma[N];
  for (int r = 0; r < N; ++r) sigma[r] = D{} + static_cast<double>(r);
  for (int k = 0; k < N - 1; ++k) {
    D best = at(k, k) < 0.0 ? -at(k, k) : at(k, k), pivot = D{} + static_cast<double>(k);
    for (int r = k + 1; r < N; ++r) {
      const D v = at(r, k) < 0.0 ? -at(r, k) : at(r, k);
      const M larger = v > best;
      best = larger ? v : best;
      pivot = larger ? D{} + static_cast<double>(r) : pivot;
    }
    const M nonzero = best != 0.0;
    for (int r = k + 1; r < N; ++r) {
      const M swap = nonzero & (pivot == static_cast<double>(r));
      for (int c = 0; c < N; ++c) {
        const D t = at(k, c);
        at(k, c) = swap ? at(r, c) : t;
        at(r, c) = swap ? t : at(r, c);
      }
      const D t = sigma[k];
      sigma[k] = swap ? sigma[r] : t;
      sigma[r] = swap ? t : sigma[r];
    }
    const D akk = at(k, k);
    for (int r = k + 1; r < N; ++r) at(r, k) = nonzero ? at(r, k) / akk : at(r, k);
    for (int c = k + 1; c < N; ++c) {
      for (int r = k + 1; r < N; ++r) at(r, c) = at(r, c) - at(k, c) * at(r, k);
    }
  }
  for (int j = 0; j < N; ++j) {
    D x[N];
    for (int r = 0; r < N; ++r) x[r] = sigma[r] == static_cast<double>(j) ? D{} + 1.0 : D{} + 0.0;
    // L^-1 (unit diagonal), panels from the top: each panel's rows solved in turn, then the GEBP
    // update of every row below it.
    for (int p0 = 0; p0 < N; p0 += kPanel) {
      const int p1 = p0 + kPanel < N ? p0 + kPanel : N;
      for (int i = p0; i < p1; ++i) {
        for (int r = i + 1; r < p1; ++r) x[r] = x[r] - x[i] * at(r, i);
      }
      for (int r = p1; r < N; ++r) {
        D c = D{} + 0.0;
        for (int k = p0; k < p1; ++k) c = c + at(r, k) * x[k];
        x[r] = x[r] + c * -1.0;
      }
    }
    // U^-1, panels from the bottom: each panel's rows solved upwards (x_i times 1 / a(i, i)),
    // then the GEBP update of every row above it.
    for (int p1 = N; p1 > 0; p1 -= kPanel) {
      const int p0 = p1 - kPanel > 0 ? p1 - kPanel : 0;
      for (int i = p1 - 1; i >= p0; --i) {
        x[i] = x[i] * (1.0 / at(i, i));
        for (int r = p0; r < i; ++r) x[r] = x[r] - x[i] * at(r, i);
      }
      for (int r = 0; r < p0; ++r) {
        D c = D{} + 0.0;
        for (int k = p0; k < p1; ++k) c = c + at(r, k) * x[k];
        x[r] = x[r] + c * -1.0;
      }
    }
    for (int i = 0; i < N; ++i) inv[N * i + j] = x[i];
  }
}

}  // namespace

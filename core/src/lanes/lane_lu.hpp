// Internal: the inverse of an 8 x 8 Jacobian in each of W lanes, bit for bit what
// SimplifiedNewton<8> forms (core/include/nhsim/newton.hpp: lu_.compute(jac_), then
// inv_ = lu_.inverse()) in the library's build (SSE2, no FMA), as Eigen 3.4 evaluates it:
//  * PartialPivLU's unblocked_lu (Eigen/src/LU/PartialPivLU.h, every fixed size up to 16): for
//    k = 0..6, the pivot is the first row r >= k of largest |a(r, k)|; unless that is 0, rows k and
//    r are swapped (all 8 columns) and a(k+1.., k) is divided by a(k, k); then
//    a(r, c) -= a(r, k) a(k, c) for r, c > k. The last column is not searched.
//  * inverse() = solve(I): X = P I, then X = L^-1 X and X = U^-1 X by triangular_solve_matrix
//    (Eigen/src/Core/products/TriangularSolverMatrix.h) on the left, one block of 8 (the fixed-size
//    blocking's kc = 8) in panels of max(mr, nr) = 4 rows (gebp_traits<double, double> without FMA:
//    mr = 4, nr = 4). Within a panel each solved x_i updates the panel's later rows,
//    x_r -= x_i a(r, i) (the upper solve first scales x_i by 1 / a(i, i), a product with the
//    reciprocal). Between the panels, the GEBP kernel updates the other panel's rows at once:
//    x_r += -(((((+0 + a(r, k0) x_k0) + a(r, k1) x_k1) + ...)), over the solved panel's rows k in
//    increasing order.
// lanes_test.cpp (LaneLu) checks the bits against Eigen's for matrices of every kind.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off.
#pragma once

#include "chaotic_quartic_kernels.hpp"

namespace {

/// inv = a^-1 of W lanes as SimplifiedNewton<8> forms it (see the file comment). a: [64],
/// column-major (entry (r, c) at 8 c + r), overwritten by the LU factors; inv: [64], row-major
/// (entry (i, j) at 8 i + j), as the lanes store inverses. A singular a gives the non-finite
/// entries Eigen's do.
template <int W>
inline void lu_inverse8(typename Lanes<W>::D* a, typename Lanes<W>::D* inv) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  const auto at = [a](int r, int c) -> D& { return a[8 * c + r]; };
  // sigma: which row of the identity each row of P I is, as the row swaps leave it.
  D sigma[8];
  for (int r = 0; r < 8; ++r) sigma[r] = D{} + static_cast<double>(r);
  for (int k = 0; k < 7; ++k) {
    D best = at(k, k) < 0.0 ? -at(k, k) : at(k, k), pivot = D{} + static_cast<double>(k);
    for (int r = k + 1; r < 8; ++r) {
      const D v = at(r, k) < 0.0 ? -at(r, k) : at(r, k);
      const M larger = v > best;
      best = larger ? v : best;
      pivot = larger ? D{} + static_cast<double>(r) : pivot;
    }
    const M nonzero = best != 0.0;
    for (int r = k + 1; r < 8; ++r) {
      const M swap = nonzero & (pivot == static_cast<double>(r));
      for (int c = 0; c < 8; ++c) {
        const D t = at(k, c);
        at(k, c) = swap ? at(r, c) : t;
        at(r, c) = swap ? t : at(r, c);
      }
      const D t = sigma[k];
      sigma[k] = swap ? sigma[r] : t;
      sigma[r] = swap ? t : sigma[r];
    }
    const D akk = at(k, k);
    for (int r = k + 1; r < 8; ++r) at(r, k) = nonzero ? at(r, k) / akk : at(r, k);
    for (int c = k + 1; c < 8; ++c) {
      for (int r = k + 1; r < 8; ++r) at(r, c) = at(r, c) - at(k, c) * at(r, k);
    }
  }
  for (int j = 0; j < 8; ++j) {
    D x[8];
    for (int r = 0; r < 8; ++r) x[r] = sigma[r] == static_cast<double>(j) ? D{} + 1.0 : D{} + 0.0;
    // L^-1: panel 0..3, the GEBP update of rows 4..7, panel 4..7 (unit diagonal).
    for (int i = 0; i < 4; ++i) {
      for (int r = i + 1; r < 4; ++r) x[r] = x[r] - x[i] * at(r, i);
    }
    for (int r = 4; r < 8; ++r) {
      D c = D{} + 0.0;
      for (int k = 0; k < 4; ++k) c = c + at(r, k) * x[k];
      x[r] = x[r] + c * -1.0;
    }
    for (int i = 4; i < 8; ++i) {
      for (int r = i + 1; r < 8; ++r) x[r] = x[r] - x[i] * at(r, i);
    }
    // U^-1: panel 7..4, the GEBP update of rows 0..3, panel 3..0.
    for (int i = 7; i >= 4; --i) {
      x[i] = x[i] * (1.0 / at(i, i));
      for (int r = 4; r < i; ++r) x[r] = x[r] - x[i] * at(r, i);
    }
    for (int r = 0; r < 4; ++r) {
      D c = D{} + 0.0;
      for (int k = 4; k < 8; ++k) c = c + at(r, k) * x[k];
      x[r] = x[r] + c * -1.0;
    }
    for (int i = 3; i >= 0; --i) {
      x[i] = x[i] * (1.0 / at(i, i));
      for (int r = 0; r < i; ++r) x[r] = x[r] - x[i] * at(r, i);
    }
    for (int i = 0; i < 8; ++i) inv[8 * i + j] = x[i];
  }
}

}  // namespace

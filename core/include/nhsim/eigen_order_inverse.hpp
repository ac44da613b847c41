// The inverse of a small fixed-size matrix, bit for bit what Eigen 3.4 gives for
// `PartialPivLU<Matrix<double, N, N>>(a).inverse()` (N from 2 to 16) in this build (SSE2, no FMA:
// -ffp-contract=off), without its blocked machinery: the simplified Newton iteration's reused
// inverse Jacobian (newton.hpp), in the scalar path and in SIMD lanes (core/src/lanes/), faster
// than Eigen's for these sizes (measured 9x at N = 2, 2.7x at 8, 2.1x at 13). Eigen
// evaluates:
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
// Only elementwise IEEE operations, so the same code runs on plain doubles and on SIMD lanes
// (one matrix per lane, each with its own pivots). tests/core/eigen_order_inverse_test.cpp
// checks the bits against Eigen's for every N used and matrices of every kind.
#pragma once

#include <type_traits>
#include <utility>

namespace nhsim {

/// Elements of one matrix: plain doubles (the scalar path). A lane kernel passes its own
/// elements instead (a struct in its translation unit's anonymous namespace with D, W doubles,
/// and M, their comparison mask), which also keeps each instruction set's instantiation internal
/// to its unit.
struct ScalarElements {
  using D = double;
  using M = bool;
};

namespace detail {

/// Whether any lane of the comparison mask m (a vector of all-ones or zero integers) is set.
template <class M>
inline bool any_lane(const M& m) {
  bool any = false;
  for (int l = 0; l < static_cast<int>(sizeof(M) / sizeof(m[0])); ++l) any = any || m[l] != 0;
  return any;
}

/// The GEBP kernel's update of row r of X (C columns) after the panel of rows p0 .. p1 - 1:
/// x_r += -(((+0 + a(r, p0) x_p0) + a(r, p0 + 1) x_p0+1) + ...). a: the LU factors, column-major.
template <class E, int N, int C>
inline void gebp_update(const typename E::D* a, int r, int p0, int p1, typename E::D (*x)[C]) {
  using D = typename E::D;
  D sum[C];
  for (int c = 0; c < C; ++c) sum[c] = D{} + 0.0;
  for (int k = p0; k < p1; ++k) {
    const D l = a[N * k + r];
    for (int c = 0; c < C; ++c) sum[c] = sum[c] + l * x[k][c];
  }
  for (int c = 0; c < C; ++c) x[r][c] = x[r][c] + sum[c] * -1.0;
}

}  // namespace detail

/// inv = a^-1 as PartialPivLU<Matrix<double, N, N>>(a).inverse() computes it (see the file
/// comment). a: [N * N] column-major (entry (r, c) at N c + r), overwritten by the LU factors;
/// inv: [N * N] column-major. A singular a gives the non-finite entries Eigen's does.
template <class E, int N>
inline void inverse_in_eigen_order(typename E::D* a, typename E::D* inv) {
  static_assert(N >= 2 && N <= 16,
                "Eigen factorises larger fixed sizes by blocks, and solves 1 x 1 by a division");
  using D = typename E::D;
  using M = typename E::M;
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
    if constexpr (std::is_same_v<M, bool>) {
      const int p = static_cast<int>(pivot);
      if (nonzero && p != k) {
        for (int c = 0; c < N; ++c) std::swap(at(k, c), at(p, c));
        std::swap(sigma[k], sigma[p]);
      }
    } else if (detail::any_lane(nonzero & (pivot != static_cast<double>(k)))) {
      // Each lane its own pivot row, swapped by selects; skipped when no lane swaps (the Newton
      // Jacobians, near the identity, rarely do).
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
    }
    const D akk = at(k, k);
    for (int r = k + 1; r < N; ++r) at(r, k) = nonzero ? at(r, k) / akk : at(r, k);
    for (int c = k + 1; c < N; ++c) {
      for (int r = k + 1; r < N; ++r) at(r, c) = at(r, c) - at(k, c) * at(r, k);
    }
  }
  // X = P I, solved in place (here, not in inv: a and inv could alias), kColumns columns at a
  // time: x[r][c] is entry (r, j0 + c). Every column gets the operations, in the order, of its
  // own solve; with the columns innermost they are independent dependency chains that overlap.
  // On plain doubles all N columns go together where there is more than one panel; lanes (W
  // chains already) and a single panel go one column at a time, which measured faster for them.
  constexpr int kColumns = std::is_same_v<M, bool> && N > kPanel ? N : 1;
  for (int j0 = 0; j0 < N; j0 += kColumns) {
    D x[N][kColumns];
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < kColumns; ++c) {
        x[r][c] = sigma[r] == static_cast<double>(j0 + c) ? D{} + 1.0 : D{} + 0.0;
      }
    }
    // L^-1 (unit diagonal), panels from the top: each panel's rows solved in turn, then the GEBP
    // update of every row below it.
    for (int p0 = 0; p0 < N; p0 += kPanel) {
      const int p1 = p0 + kPanel < N ? p0 + kPanel : N;
      for (int i = p0; i < p1; ++i) {
        for (int r = i + 1; r < p1; ++r) {
          const D l = at(r, i);
          for (int c = 0; c < kColumns; ++c) x[r][c] = x[r][c] - x[i][c] * l;
        }
      }
      for (int r = p1; r < N; ++r) detail::gebp_update<E, N, kColumns>(a, r, p0, p1, x);
    }
    // U^-1, panels from the bottom: each panel's rows solved upwards (x_i times 1 / a(i, i)),
    // then the GEBP update of every row above it.
    for (int p1 = N; p1 > 0; p1 -= kPanel) {
      const int p0 = p1 - kPanel > 0 ? p1 - kPanel : 0;
      for (int i = p1 - 1; i >= p0; --i) {
        const D reciprocal = 1.0 / at(i, i);
        for (int c = 0; c < kColumns; ++c) x[i][c] = x[i][c] * reciprocal;
        for (int r = p0; r < i; ++r) {
          const D u = at(r, i);
          for (int c = 0; c < kColumns; ++c) x[r][c] = x[r][c] - x[i][c] * u;
        }
      }
      for (int r = 0; r < p0; ++r) detail::gebp_update<E, N, kColumns>(a, r, p0, p1, x);
    }
    for (int c = 0; c < kColumns; ++c) {
      for (int r = 0; r < N; ++r) inv[N * (j0 + c) + r] = x[r][c];
    }
  }
}

}  // namespace nhsim

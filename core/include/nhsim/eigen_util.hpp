// Small Eigen helpers shared by systems and integrators.
#pragma once

#include <Eigen/Dense>

namespace nhsim {

/// Size policy for the integrators' own workspaces (the Newton unknowns and Jacobians): a
/// dimension up to kMaxFixedDimension is fixed at compile time, a larger one is Eigen::Dynamic
/// (allocated once, at construction). Fixed sizes make small systems fast; above ~32 they buy
/// no speed (Eigen's products switch to its blocked kernels there either way) and cost compile
/// time: the four_bar's 88 x 88 GGL Jacobian and its decompositions took a third of the ggl
/// unit's compile time as fixed-size types. The systems keep their own fixed sizes.
inline constexpr int kMaxFixedDimension = 32;

/// n itself when n <= kMaxFixedDimension, else Eigen::Dynamic (also for n = Dynamic).
constexpr int workspace_dimension(int n) {
  return n == Eigen::Dynamic || n > kMaxFixedDimension ? Eigen::Dynamic : n;
}

/// First n entries of v as a fixed-size block when N is fixed (N == n), dynamic otherwise.
template <int N, class V>
inline auto head_n(V&& v, int n) {
  if constexpr (N == Eigen::Dynamic) {
    return v.head(n);
  } else {
    (void)n;
    return v.template head<N>();
  }
}

/// Last n entries of v, fixed-size when N is fixed.
template <int N, class V>
inline auto tail_n(V&& v, int n) {
  if constexpr (N == Eigen::Dynamic) {
    return v.tail(n);
  } else {
    (void)n;
    return v.template tail<N>();
  }
}

/// out(a) = sum_j m(a, j) x(j), j = 0, 1, ... in order, for every row a of m: the same sum for
/// doubles and over lanes (nhsim/lane.hpp), where Eigen's own products reduce in another order
/// for each. Shapes: m rows x n, x of length n, out of length rows.
template <class M, class X, class Out>
void ordered_product(const M& m, const X& x, Out&& out) {
  for (Eigen::Index a = 0; a < m.rows(); ++a) {
    auto s = m(a, 0) * x(0);
    for (Eigen::Index j = 1; j < x.size(); ++j) s += m(a, j) * x(j);
    out(a) = s;
  }
}

}  // namespace nhsim

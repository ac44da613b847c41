// Small Eigen helpers shared by systems and integrators.
#pragma once

#include <Eigen/Dense>

namespace nhsim {

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

}  // namespace nhsim

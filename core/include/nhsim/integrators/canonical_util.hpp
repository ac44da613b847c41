// Helpers shared by the integrators that work in canonical coordinates with multipliers
// (`gonzalez_f`, `i_dla`): fixed-size segments of a stacked unknown x = (q', [p',] lambda).
#pragma once

#include <Eigen/Dense>

#include "nhsim/eigen_util.hpp"

namespace nhsim {

/// Storage size of a stacked vector of k blocks of length NQ and one of length NC: Dynamic if
/// any is, or if K NQ + NC exceeds the size policy's kMaxFixedDimension (eigen_util.hpp).
template <int NQ, int NC, int K>
inline constexpr int kStackedSize = (NQ == Eigen::Dynamic || NC == Eigen::Dynamic)
                                        ? Eigen::Dynamic
                                        : workspace_dimension(K* NQ + NC);

/// v.segment(start, n) as a fixed-size block when N is fixed (N == n), dynamic otherwise.
template <int N, class V>
inline auto segment_n(V&& v, int start, int n) {
  if constexpr (N == Eigen::Dynamic) {
    return v.segment(start, n);
  } else {
    (void)n;
    return v.template segment<N>(start);
  }
}

}  // namespace nhsim

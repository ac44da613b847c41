// Helpers shared by the integrators that work in canonical coordinates with multipliers
// (`gonzalez_f`, `avf_f`, `i_dla`, `spark2`): fixed-size segments of a stacked unknown
// x = (q', [p',] lambda), and the history of solutions their predictor extrapolates.
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

/// The last three solutions of a step's Newton unknowns, x1 = x_n, x2 = x_{n-1}, x3 = x_{n-2}
/// (each of length n, zero until set), and how many of them are valid (0 to 3): what the
/// quadratic predictor 3 x_n - 3 x_{n-1} + x_{n-2} of gonzalez_f, avf_f, i_dla and spark2
/// extrapolates, and what their lane steppers (core/src/lanes/) read after a step and restore
/// before one.
template <class VecX>
struct SolutionHistory {
  SolutionHistory() = default;
  explicit SolutionHistory(int n) : x1(VecX::Zero(n)), x2(VecX::Zero(n)), x3(VecX::Zero(n)) {}

  /// No solution yet (a new trajectory); x1 = 0, the first predictor's multiplier.
  void reset() {
    x1.setZero();
    count = 0;
  }
  /// Whether three solutions are known, so that extrapolate() applies.
  bool full() const { return count >= 3; }
  /// x = 3 (x_n - x_{n-1}) + x_{n-2}.
  void extrapolate(VecX& x) const { x = 3.0 * (x1 - x2) + x3; }
  /// x becomes the newest solution.
  void push(const VecX& x) {
    x3.swap(x2);
    x2.swap(x1);
    x1 = x;
    if (count < 3) ++count;
  }

  VecX x1, x2, x3;
  int count = 0;
};

}  // namespace nhsim

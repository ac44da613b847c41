// Internal: the structure-of-arrays storage of the lane steppers (core/src/lanes/).
#pragma once

#include <array>
#include <cstddef>

namespace nhsim::lanes {

constexpr int kMaxWidth = 8;

/// Rows of W doubles, component-major: entry (row, lane) at row W + lane.
template <int kRows>
class LaneRows {
 public:
  explicit LaneRows(int width) : w_(width) { x_.fill(0.0); }
  double* row(int r) { return x_.data() + r * w_; }
  const double* row(int r) const { return x_.data() + r * w_; }
  double& at(int r, int lane) { return x_[static_cast<std::size_t>(r * w_ + lane)]; }
  double at(int r, int lane) const { return x_[static_cast<std::size_t>(r * w_ + lane)]; }
  /// Rows row0 .. row0 + v.size() - 1 of lane `lane` from v, and back.
  template <class V>
  void put(int lane, int row0, const V& v) {
    for (int j = 0; j < v.size(); ++j) at(row0 + j, lane) = v(j);
  }
  template <class V>
  void take(int lane, int row0, V& v) const {
    for (int j = 0; j < v.size(); ++j) v(j) = at(row0 + j, lane);
  }

 private:
  alignas(64) std::array<double, kRows * kMaxWidth> x_;
  int w_;
};

}  // namespace nhsim::lanes

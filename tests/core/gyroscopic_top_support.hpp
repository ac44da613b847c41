// The gyroscopic top of [Kinon2023] §5.1 with the paper's data and its steady precession state,
// shared by gyroscopic_top_test.cpp and ggl_test.cpp.
#pragma once

#include <numbers>

#include "nhsim/systems/gyroscopic_top.hpp"

namespace nhsim::test {

inline GyroscopicTop paper_top() {
  return GyroscopicTop(0.7069, 5.3014e-4, 5.3014e-4, 5.3014e-4, 0.075, 9.81);
}

inline constexpr double kAlpha0 = std::numbers::pi / 3.0;
inline constexpr double kOmegaP = 10.0;

inline void paper_state(const GyroscopicTop& top, GyroscopicTop::VecQ& q, GyroscopicTop::VecQ& p) {
  top.steady_precession_state(kAlpha0, kOmegaP, top.steady_spin_rate(kAlpha0, kOmegaP), q, p);
}

}  // namespace nhsim::test

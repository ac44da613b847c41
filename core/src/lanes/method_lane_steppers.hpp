// Internal: the lane steppers from the integrators' own code (method_lanes.cpp).
#pragma once

#include <memory>

#include "nhsim/lanes.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim {

/// Lanes of `choice` on `sys` (a type of lanes::MethodLaneSystems, lane_block.hpp) from the
/// integrators' own code: si_dla where lanes::kSiDlaLanes, rk4 where lanes::kRk4Lanes; nullptr
/// for another integrator or with lanes off. Throws std::invalid_argument as
/// resolve_lane_settings() does.
template <class S>
std::unique_ptr<LaneStepper> make_method_lanes(const S& sys, const IntegratorChoice& choice,
                                               const LaneSettings& settings);

}  // namespace nhsim

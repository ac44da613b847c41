// Internal: the lane steppers of the chaotic quartic system (chaotic_quartic_lanes.cpp).
#pragma once

#include <memory>

#include "kernels.hpp"
#include "nhsim/lanes.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"

namespace nhsim {

/// A lane stepper of `choice` (si_dla, rk2, nh_rattle, nh_rattle_projected, rk4, gonzalez, avf,
/// midpoint, itoh_abe, i_dla, spark2, dla, gonzalez_f or avf_f; h = choice.h) on `sys` with the
/// resolved `settings` (resolve_lane_settings()); nullptr for another integrator or lanes off.
/// si_dla and rk4 are the integrators' own code over lanes (method_lanes.hpp), the others
/// hand-written kernels. Throws std::invalid_argument as resolve_lane_settings() does.
std::unique_ptr<LaneStepper> make_chaotic_quartic_lanes(const ChaoticQuartic<3>& sys,
                                                        const IntegratorChoice& choice,
                                                        const LaneSettings& settings);

/// Lanes of `choice` on the dynamic-size system at n = 2 and 5 (si_dla, rk4: the integrators' own
/// code over lanes, method_lanes.cpp), as make_chaotic_quartic_lanes at n = 3;
/// nullptr for another n or integrator.
std::unique_ptr<LaneStepper> make_chaotic_quartic_lanes(const ChaoticQuartic<Eigen::Dynamic>& sys,
                                                        const IntegratorChoice& choice,
                                                        const LaneSettings& settings);

/// Lanes of the discrete gradient method `choice` (gonzalez, avf, midpoint or itoh_abe; nullptr
/// for another) on `sys`: `width` lanes stepped by `kernel` (the method's, of that width), and
/// scalar steppers of the same choice for the steps a lane's kernel hands back
/// (chaotic_quartic_discrete_gradient_lanes.cpp).
std::unique_ptr<LaneStepper> make_chaotic_quartic_discrete_gradient_lanes(
    const ChaoticQuartic<3>& sys, const IntegratorChoice& choice, int width,
    lanes::DiscreteGradientKernel kernel);

/// Lanes of the Newton-based method `choice` on the canonical state (i_dla, spark2, gonzalez_f or
/// avf_f; nullptr for another) on `sys`: `width` lanes stepped by `kernel` (the method's, of that
/// width), and scalar steppers of the same choice for the steps a lane's kernel hands back
/// (chaotic_quartic_canonical_newton_lanes.cpp).
std::unique_ptr<LaneStepper> make_chaotic_quartic_canonical_newton_lanes(
    const ChaoticQuartic<3>& sys, const IntegratorChoice& choice, int width,
    lanes::CanonicalNewtonKernel kernel);

/// Lanes of dla (nullptr for another choice) on `sys`: `width` lanes stepped by `kernel`, and
/// scalar steppers of the same choice for the steps a lane's kernel hands back
/// (chaotic_quartic_dla_lanes.cpp).
std::unique_ptr<LaneStepper> make_chaotic_quartic_dla_lanes(const ChaoticQuartic<3>& sys,
                                                            const IntegratorChoice& choice,
                                                            int width,
                                                            lanes::MomentumMatchingKernel kernel);

}  // namespace nhsim

// Steppers by integrator id for the catalogue's system types, and which integrators apply.
//
// Only declarations: the definitions are compiled once, inside nhsim_core (docs/design.md: each
// (system, integrator) pair in exactly one translation unit). The dispatch for a system type
// is instantiated in core/src/stepper_dispatch.cpp; each applicable pair in the pair unit
// generated for its integrator (core/src/pairs.cpp.in). Including this header compiles no
// integrator.
// Calling these templates for a type outside the catalogue fails to link; a test-local system
// type includes nhsim/integrators/registry.hpp for the applicability templates instead.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/lanes.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// Stepper of integrator `choice.integrator` on `sys`, with step choice.h and the choice's
/// Newton settings (0 = the integrator's defaults); nullptr if the id is unknown or the
/// integrator does not apply to S. Precondition: choice.h > 0.
template <class S>
std::unique_ptr<Stepper> make_stepper_for(const S& sys, const IntegratorChoice& choice);

/// A lane stepper of `choice` on `sys` with resolved `lanes` settings (resolve_lane_settings()),
/// where (S, choice.integrator) has lane kernels (core/src/lanes/); nullptr otherwise or for
/// LaneIsa::kOff.
template <class S>
std::unique_ptr<LaneStepper> make_lane_stepper_for(const S& sys, const IntegratorChoice& choice,
                                                   const LaneSettings& lanes);

/// Why integrator `id` does not apply to system type S ("<id> needs <requirement>");
/// std::nullopt if it applies or the id is unknown.
template <class S>
std::optional<std::string> integrator_not_applicable(const std::string& id);

/// Ids of the integrators that apply to S, in registry order.
template <class S>
std::vector<std::string> applicable_integrators();

}  // namespace nhsim

// Internal: a user-defined system as the spec runner sees it: a SystemEntry for the
// integrator checks, and its SystemModel (prepared_spec.cpp).
#pragma once

#include <memory>

#include "nhsim/custom/definition.hpp"
#include "nhsim/custom/model.hpp"
#include "nhsim/model.hpp"

namespace nhsim {

/// The name results and messages give a user-defined system.
inline constexpr const char* kCustomSystemName = "custom_system";

/// The entry of every user-defined system of that kind: which integrators apply and why others
/// do not. `make` is null (use make_custom_model, nhsim/custom/model.hpp); no
/// potential_lower_bound.
const SystemEntry& custom_system_entry(CustomKind kind);

/// check_custom_system_at() at the explicit initial states (or the velocity perturbation's
/// base state), after validate_initial_conditions(). The states an energy-shell generator draws
/// are not checked.
void check_custom_initial_states(const CustomSystemDefinition& def, const InitialConditions& ic);

}  // namespace nhsim

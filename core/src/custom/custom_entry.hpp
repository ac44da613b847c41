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

/// The entry of every user-defined system of def's kind (a constant M without holonomic
/// constraints for null): which integrators apply to its system type and why others do not;
/// custom_integrator_problem() adds what depends on the definition itself. `make` is null (use
/// make_custom_model, nhsim/custom/model.hpp); no potential_lower_bound.
const SystemEntry& custom_system_entry(const CustomSystemDefinition* def);

/// check_custom_system_at() at the explicit initial states (or the velocity perturbation's
/// base state), after validate_initial_conditions(). The states an energy-shell generator draws
/// are not checked.
void check_custom_initial_states(const CustomSystemDefinition& def, const InitialConditions& ic);

}  // namespace nhsim

// Internal: a system's catalogue entry from its type, for core/src/systems/<system>.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "nhsim/model.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim {

/// The catalogue entry of system type S: `info` with the integrators that apply to S, the model
/// factory `make`, and S's applicability rule (integrator_not_applicable<S>, instantiated in
/// stepper_dispatch.cpp). No potential_lower_bound: a system with a known one sets it.
template <class S>
SystemEntry catalogue_entry(
    SystemInfo info, std::unique_ptr<SystemModel> (*make)(const std::map<std::string, double>&)) {
  info.integrators = applicable_integrators<S>();
  return SystemEntry{std::move(info), make,
                     [](const std::string& id) { return integrator_not_applicable<S>(id); },
                     nullptr};
}

/// potential_lower_bound of a system whose V is 0, or >= 0, everywhere.
inline double zero_potential_bound(const std::map<std::string, double>& /*parameters*/) {
  return 0.0;
}

}  // namespace nhsim

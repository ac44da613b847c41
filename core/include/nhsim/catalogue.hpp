// What nhsim can run: systems with their parameters and invariants, integrators with what they
// need, and which pairs apply. Used by ListSystems / ListIntegrators and by validation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nhsim {

struct CustomSystemDefinition;  // nhsim/custom/definition.hpp

struct ParameterInfo {
  std::string name;
  double default_value = 0.0;
  std::string unit;  ///< e.g. "kg", "1" for dimensionless
  std::string description;
  bool integer = false;    ///< must be a whole number (e.g. n of the chaotic system)
  double min_value = 0.0;  ///< inclusive lower bound
  double max_value = 0.0;  ///< inclusive upper bound
};

struct SystemInfo {
  std::string name;
  std::string description;
  std::string source;  ///< e.g. "[Celledoni2019] §4.1 eq. (19)-(21)"
  std::vector<ParameterInfo> parameters;
  std::vector<std::string> invariants;   ///< named invariants besides energy
  std::vector<std::string> integrators;  ///< integrator ids that apply
  /// Integrator id -> the newton_tol this system needs where the integrator's default does not
  /// suit it (four_bar: ggl 1e-9, to pass the singular configurations). A choice with
  /// newton_tol = 0 runs with it; the result echoes it.
  std::map<std::string, double> newton_tol_defaults;
};

struct IntegratorInfo {
  std::string name;
  std::string description;
  std::string source;
  int order = 0;  ///< classical order of accuracy
  bool implicit = false;
  bool energy_preserving = false;
  std::vector<std::string> requires_;  ///< e.g. "reduced form", "constant mass matrix"
  double default_newton_tol = 0.0;     ///< 0 where no Newton solve
  int default_newton_max_iter = 0;
};

std::vector<SystemInfo> list_systems();
std::vector<IntegratorInfo> list_integrators();
/// The entry of a user-defined system (spec field custom_system): its description and the
/// integrators that apply to definitions of the kind of `def` (nhsim/custom/definition.hpp), or
/// without one to every definition with a constant mass matrix and no control forces. Not among
/// list_systems().
SystemInfo custom_system_info(const CustomSystemDefinition* def = nullptr);

/// Why `integrator` does not apply to `system`; std::nullopt when it applies.
/// Precondition: both names are known.
std::optional<std::string> not_applicable(const std::string& system, const std::string& integrator);

}  // namespace nhsim

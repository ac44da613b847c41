// Internal: an EnsembleSpec checked field by field and bound to its system model: what the
// runner needs before the first step.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nhsim/ensemble_spec.hpp"
#include "nhsim/model.hpp"
#include "observables.hpp"
#include "outputs.hpp"
#include "until.hpp"

namespace nhsim {

struct PreparedSpec {
  std::map<std::string, double> parameters;  ///< all parameters, defaults filled in
  std::unique_ptr<SystemModel> model;        ///< with the spec's controls and loads bound
  std::vector<ObsDef> observables;
  std::vector<std::int64_t> n_steps;  ///< per integrator choice: t_final / h
  /// The spec's choices with newton_tol = 0 replaced by the system's default for that
  /// integrator, where it has one (SystemInfo::newton_tol_defaults).
  std::vector<IntegratorChoice> choices;
  PreparedOutputs outputs;
  std::vector<PreparedTarget> until;  ///< EnsembleSpec::until, resolved
};

/// Checks `spec` in this order: system, parameters, controls, loads, t_final, each integrator
/// choice, the initial conditions, the observables, the outputs, until. Throws SpecError naming the
/// first bad field.
PreparedSpec prepare(const EnsembleSpec& spec);

}  // namespace nhsim

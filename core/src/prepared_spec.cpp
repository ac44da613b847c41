// Spec validation and binding (prepared_spec.hpp).
#include "prepared_spec.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>

#include "custom/custom_entry.hpp"
#include "join.hpp"
#include "nhsim/catalogue.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/integrators/si_dla.hpp"

namespace nhsim {

class ChaplyginSleighCom;
class FourBar;
class GyroscopicTop;

namespace {

/// Whether si_dla's multiplier equation is affine on catalogue system `system`
/// (kSiDlaConstraintAffine, nhsim/integrators/si_dla.hpp): then one linear solve is exact and the
/// step does no Newton iteration. Every system si_dla applies to is listed, with the type its
/// catalogue entry registers (core/src/systems/); one missing is a programming error
/// (std::logic_error), which Ensemble.SiDlaNewtonSettingsApplyOnlyWhereItIterates finds.
bool si_dla_affine(const std::string& system) {
  static const std::map<std::string, bool> affine = {
      {"chaotic_quartic", kSiDlaConstraintAffine<ChaoticQuartic<3>>},
      {"rolling_disk", kSiDlaConstraintAffine<RollingDisk>},
      {"gearbox", kSiDlaConstraintAffine<Gearbox>},
      {"nonholonomic_particle", kSiDlaConstraintAffine<NonholonomicParticle>},
      {"knife_edge", kSiDlaConstraintAffine<KnifeEdge>},
      {"chaplygin_sleigh_com", kSiDlaConstraintAffine<ChaplyginSleighCom>},
      {"gyroscopic_top", kSiDlaConstraintAffine<GyroscopicTop>},
      {"four_bar", kSiDlaConstraintAffine<FourBar>}};
  const auto it = affine.find(system);
  if (it == affine.end()) {
    throw std::logic_error("si_dla applies to system '" + system +
                           "', which si_dla_affine() (prepared_spec.cpp) does not list");
  }
  return it->second;
}

/// Why newton_tol and newton_max_iter do not apply to integrator `info` on the system of `entry`
/// (`custom`: its definition, for a user-defined system); std::nullopt where the pair does a
/// Newton solve. An explicit integrator never does; si_dla does not where its multiplier equation
/// is affine (one linear solve, which reads neither setting): on the catalogue systems of
/// si_dla_affine() and on a user-defined system whose definition says so
/// (constraint_affine_along_forces, the test SiDlaMethod itself takes).
std::optional<std::string> no_newton_solve(const IntegratorInfo& info, const SystemEntry& entry,
                                           const CustomSystemDefinition* custom) {
  if (!info.implicit) return info.name + " is explicit (no Newton solve)";
  if (info.name == "si_dla") {
    const bool affine =
        custom != nullptr ? custom->constraint_affine_along_forces : si_dla_affine(entry.info.name);
    if (affine) {
      return "si_dla does no Newton solve on system '" + entry.info.name +
             "': its multiplier equation is affine there, and one linear solve is exact";
    }
  }
  return std::nullopt;
}

/// Checks integrator choice `c` (field path `f`) for system `entry`; returns its step count.
std::int64_t check_choice(const IntegratorChoice& c, const std::string& f, const SystemEntry& entry,
                          const CustomSystemDefinition* custom, const EnsembleSpec& spec,
                          const std::vector<IntegratorInfo>& integrators) {
  const IntegratorInfo* info = nullptr;
  for (const auto& k : integrators) {
    if (k.name == c.integrator) info = &k;
  }
  if (info == nullptr) {
    std::vector<std::string> known;
    for (const auto& k : integrators) known.push_back(k.name);
    throw SpecError(f + ".integrator",
                    "unknown integrator " + echo(c.integrator) + "; known: " + join(known));
  }
  if (auto why = entry.not_applicable(c.integrator)) {
    throw SpecError(f + ".integrator",
                    "does not apply to system '" + entry.info.name + "': " + *why);
  }
  if (!std::isfinite(c.h) || c.h <= 0.0) throw SpecError(f + ".h", "must be finite and > 0");
  if (c.sample_every < 1) throw SpecError(f + ".sample_every", "must be >= 1");
  if (!std::isfinite(c.newton_tol) || c.newton_tol < 0.0) {
    throw SpecError(f + ".newton_tol", "must be finite and >= 0 (0 = integrator default)");
  }
  if (c.newton_max_iter < 0) {
    throw SpecError(f + ".newton_max_iter", "must be >= 0 (0 = integrator default)");
  }
  // A setting that does not apply is refused, never silently ignored.
  if (c.newton_tol != 0.0 || c.newton_max_iter != 0) {
    if (const auto why = no_newton_solve(*info, entry, custom)) {
      throw SpecError(f + (c.newton_tol != 0.0 ? ".newton_tol" : ".newton_max_iter"),
                      "does not apply: " + *why);
    }
  }
  const double ratio = spec.t_final / c.h;
  if (!(ratio <= 9.0e15)) throw SpecError(f + ".h", "t_final / h is too large");
  const double steps = std::round(ratio);
  if (steps < 1.0 || std::abs(steps * c.h - spec.t_final) > 1e-9 * spec.t_final) {
    std::ostringstream os;
    os.precision(17);
    os << "t_final = " << spec.t_final << " must be an integer multiple of h = " << c.h;
    throw SpecError(f + ".h", os.str());
  }
  return static_cast<std::int64_t>(steps);
}

/// Refuses an energy shell at or below the system's lower bound of V: no draw could succeed.
void check_shell_reachable(const EnsembleSpec& spec, const SystemEntry& entry,
                           const std::map<std::string, double>& parameters) {
  const auto* shell = std::get_if<EnergyShellGenerator>(&spec.initial_conditions);
  if (shell == nullptr || entry.potential_lower_bound == nullptr) return;
  const double bound = entry.potential_lower_bound(parameters);
  if (shell->energy > bound) return;
  std::ostringstream os;
  os.precision(17);
  os << shell->energy << " cannot be reached: V >= " << bound << " everywhere for system '"
     << entry.info.name << "' with these parameters, so no state has this energy with positive "
     << "kinetic energy";
  throw SpecError("initial_conditions.energy_shell.energy", os.str());
}

}  // namespace

PreparedSpec prepare(const EnsembleSpec& spec) {
  PreparedSpec pr;
  const SystemEntry* entry = nullptr;
  std::shared_ptr<const CustomSystemDefinition> custom;
  if (spec.custom_system) {
    if (!spec.system.empty()) {
      throw SpecError("custom_system",
                      "set either system (a catalogue name) or custom_system, "
                      "not both");
    }
    if (!spec.parameters.empty()) {
      throw SpecError("parameters",
                      "does not apply to custom_system: its parameters are "
                      "custom_system.parameters");
    }
    custom = compile_custom_system(*spec.custom_system);
    entry = &custom_system_entry(custom.get());
    pr.model = make_custom_model(custom);
    for (const auto& [name, value] : spec.custom_system->parameters) pr.parameters[name] = value;
  } else {
    entry = find_system(spec.system);
    if (entry == nullptr) {
      std::vector<std::string> known;
      for (const auto& e : system_registry()) known.push_back(e.info.name);
      if (spec.system.empty()) {
        throw SpecError("system",
                        "no system: set system (known: " + join(known) + ") or custom_system");
      }
      throw SpecError("system", "unknown system " + echo(spec.system) + "; known: " + join(known));
    }
    pr.parameters = complete_parameters(*entry, spec.parameters);
    pr.model = entry->make(pr.parameters);
  }
  pr.model->set_controls(spec.controls);
  pr.model->set_loads(spec.loads);

  if (!std::isfinite(spec.t_final) || spec.t_final <= 0.0) {
    throw SpecError("t_final", "must be finite and > 0");
  }
  if (spec.integrators.empty()) {
    throw SpecError("integrators", "at least one integrator choice is required");
  }
  const std::vector<IntegratorInfo> integrators = list_integrators();
  for (std::size_t i = 0; i < spec.integrators.size(); ++i) {
    const std::string f = "integrators[" + std::to_string(i) + "]";
    pr.n_steps.push_back(
        check_choice(spec.integrators[i], f, *entry, custom.get(), spec, integrators));
    if (const auto why = pr.model->integrator_problem(spec.integrators[i].integrator)) {
      throw SpecError(
          f + ".integrator",
          "does not apply to this " + (custom ? kCustomSystemName : spec.system) + ": " + *why);
    }
    IntegratorChoice c = spec.integrators[i];
    const auto system_default = entry->info.newton_tol_defaults.find(c.integrator);
    if (c.newton_tol == 0.0 && system_default != entry->info.newton_tol_defaults.end()) {
      c.newton_tol = system_default->second;
    }
    pr.choices.push_back(c);
  }

  validate_initial_conditions(spec.initial_conditions, *pr.model,
                              custom ? kCustomSystemName : spec.system);
  if (custom) check_custom_initial_states(*custom, spec.initial_conditions);
  check_shell_reachable(spec, *entry, pr.parameters);
  pr.observables = resolve_observables(spec.observables, pr.model->nq(), pr.model->ng() > 0,
                                       pr.model->observable_names(), custom != nullptr);
  pr.outputs = prepare_outputs(spec.outputs, trajectory_count(spec.initial_conditions),
                               pr.observables, spec.integrators, pr.n_steps);
  pr.until = prepare_until(spec.until, spec.integrators, pr.observables);
  return pr;
}

}  // namespace nhsim

// The system entry and model of a user-defined system (custom_entry.hpp).
#include "custom/custom_entry.hpp"

#include <type_traits>
#include <utility>
#include <variant>

#include "nhsim/model_impl.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/custom_system.hpp"

namespace nhsim {
namespace {

/// The model over CustomSystem<NQ, NC> when the definition has that fixed size, else null.
template <int NQ, int NC>
std::unique_ptr<SystemModel> make_if(const std::shared_ptr<const CustomSystemDefinition>& def) {
  if (def->nq != NQ || def->nc != NC || def->kind() != CustomKind::kConstantMass || def->ng != 0) {
    return nullptr;
  }
  return std::make_unique<ModelImpl<CustomSystem<NQ, NC>>>(CustomSystem<NQ, NC>(def));
}

StateList explicit_states(const InitialConditions& ic) {
  if (const auto* s = std::get_if<ExplicitStates>(&ic)) return s->states;
  if (const auto* v = std::get_if<VelocityPerturbation>(&ic)) return {v->base};
  return {};
}

/// The entry of every definition of kind MF, with holonomic constraints or without: every size
/// has the same structure, so one type answers which integrators apply and why the others do
/// not (the fixed size (3, 1) for a constant M without holonomic constraints, the dynamic size
/// otherwise). What depends on the definition itself is custom_integrator_problem().
template <CustomKind MF, bool kHolonomic = false>
SystemEntry make_custom_system_entry() {
  using S = std::conditional_t<MF == CustomKind::kConstantMass && !kHolonomic, CustomSystem<3, 1>,
                               CustomSystem<Eigen::Dynamic, Eigen::Dynamic, MF>>;
  static_assert(!kHolonomic || S::kHolonomic);
  SystemInfo info;
  info.name = kCustomSystemName;
  switch (MF) {
    case CustomKind::kConstantMass:
      if (kHolonomic) {
        info.description =
            "A user-defined system (spec field custom_system) with holonomic constraints g(q): "
            "the canonical methods keep their velocity form G(q) M^-1 p = 0 among the "
            "constraint rows; ggl keeps g(q) = 0 itself where each g_k is at most quadratic in "
            "q and there are no nonholonomic rows";
        break;
      }
      info.description =
          "A user-defined system (spec field custom_system): mass matrix M, potential V(q), "
          "constraint one-forms mu(q), holonomic constraints g(q) and control forces given as "
          "expressions, parsed and differentiated by the server and evaluated by register "
          "tapes. The integrators listed apply to a constant M; with holonomic constraints, ggl "
          "too; to an M that depends on q, gonzalez_r and gonzalez_r_fd; with control forces, "
          "nh_rattle, nh_rattle_projected and rk2";
      break;
    case CustomKind::kVaryingMass:
      info.description =
          "A user-defined system (spec field custom_system) whose mass matrix M(q) depends on "
          "the coordinates";
      break;
    case CustomKind::kControlled:
      info.description = "A user-defined system (spec field custom_system) with control forces";
      break;
  }
  info.source = "docs/custom-systems.md";
  info.integrators = applicable_integrators<S>();
  return SystemEntry{std::move(info), nullptr,
                     [](const std::string& id) { return integrator_not_applicable<S>(id); },
                     nullptr};
}

}  // namespace

const SystemEntry& custom_system_entry(const CustomSystemDefinition* def) {
  static const SystemEntry kConstant = make_custom_system_entry<CustomKind::kConstantMass>();
  static const SystemEntry kHolonomic = make_custom_system_entry<CustomKind::kConstantMass, true>();
  static const SystemEntry kVarying = make_custom_system_entry<CustomKind::kVaryingMass>();
  static const SystemEntry kControlled = make_custom_system_entry<CustomKind::kControlled>();
  if (def == nullptr) return kConstant;
  if (def->ng > 0) return kHolonomic;
  switch (def->kind()) {
    case CustomKind::kVaryingMass:
      return kVarying;
    case CustomKind::kControlled:
      return kControlled;
    case CustomKind::kConstantMass:
      break;
  }
  return kConstant;
}

std::unique_ptr<SystemModel> make_custom_model(
    const std::shared_ptr<const CustomSystemDefinition>& def) {
  if (auto m = make_if<3, 1>(def)) return m;
  if (auto m = make_if<7, 1>(def)) return m;
  if (def->kind() == CustomKind::kVaryingMass) {
    using Varying = CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>;
    return std::make_unique<ModelImpl<Varying>>(Varying(def));
  }
  if (def->kind() == CustomKind::kControlled) {
    using Controlled = CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>;
    return std::make_unique<ModelImpl<Controlled>>(Controlled(def));
  }
  using AnySize = CustomSystem<Eigen::Dynamic, Eigen::Dynamic>;
  return std::make_unique<ModelImpl<AnySize>>(AnySize(def));
}

void check_custom_initial_states(const CustomSystemDefinition& def, const InitialConditions& ic) {
  const bool base = std::holds_alternative<VelocityPerturbation>(ic);
  const StateList states = explicit_states(ic);
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (states[i].q.size() != static_cast<std::size_t>(def.nq)) continue;  // validated before
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(
        states[i].q.data(), static_cast<Eigen::Index>(states[i].q.size()));
    check_custom_system_at(def, q,
                           base ? "the base state of initial_conditions.velocity_perturbation"
                                : "initial_conditions.states[" + std::to_string(i) + "]");
  }
}

}  // namespace nhsim

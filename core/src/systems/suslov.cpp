// Registration of the Euler-Poincaré-Suslov problem on so(3) ([Celledoni2019] §4.3). The paper
// gives no numbers; the defaults are a positive definite, non-degenerate inertia with I12 = 0: I11
// = 2, I22 = 3, I33 = 4, I13 = 0.5, I23 = 0.3 kg m^2 (det I = 23.07 kg^3 m^6).
#include "nhsim/systems/suslov.hpp"

#include <stdexcept>

#include "catalogue_entry.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  try {
    return std::make_unique<ModelImpl<Suslov>>(Suslov(
        params.at("I11"), params.at("I22"), params.at("I33"), params.at("I13"), params.at("I23")));
  } catch (const std::invalid_argument& e) {
    // The bounds cannot express positive definiteness: report it as a parameter error.
    throw SpecError("parameters", e.what());
  }
}

std::optional<std::string> not_applicable(const std::string& id) {
  if (auto why = integrator_not_applicable<Suslov>(id)) {
    return *why +
           " (suslov: the canonical equations p' = -dH/dq + mu^T lambda miss the Lie-Poisson "
           "term M x omega of the Euler-Poincare-Suslov equations, so canonical methods are "
           "refused; use a reduced-form method)";
  }
  return std::nullopt;
}

}  // namespace

SystemEntry suslov_entry() {
  SystemInfo info;
  info.name = "suslov";
  info.description =
      "Euler-Poincare-Suslov problem on so(3): rigid body with inertia I (I12 = 0) and the "
      "nonholonomic constraint omega3 = 0, M' = M x omega + lambda e3. Canonical embedding: "
      "p = M = I omega (body angular momentum), mass matrix I, mu = e3, q a placeholder carried "
      "unchanged (q' = 0). Reduced form rho = (M1, M2), H = rho1^2 / (2 I11) + rho2^2 / (2 I22), "
      "rho1' = -c rho2 / I22, rho2' = c rho1 / I11, c = (I13 / I11) rho1 + (I23 / I22) rho2";
  info.source = "[Celledoni2019] §4.3";
  info.parameters = {
      ParameterInfo{"I11", 2.0, "kg m^2", "inertia tensor entry I11 (> 0)", false, 1e-9, 1e9},
      ParameterInfo{"I22", 3.0, "kg m^2", "inertia tensor entry I22 (> 0)", false, 1e-9, 1e9},
      ParameterInfo{"I33", 4.0, "kg m^2", "inertia tensor entry I33 (> 0)", false, 1e-9, 1e9},
      ParameterInfo{"I13", 0.5, "kg m^2",
                    "inertia tensor entry I13 (I must stay positive definite)", false, -1e9, 1e9},
      ParameterInfo{"I23", 0.3, "kg m^2",
                    "inertia tensor entry I23 (I must stay positive definite)", false, -1e9, 1e9}};
  info.invariants = {};
  SystemEntry e = catalogue_entry<Suslov>(std::move(info), &make);
  e.not_applicable = &not_applicable;               // adds the reason to the rule
  e.potential_lower_bound = &zero_potential_bound;  // V = 0
  return e;
}

}  // namespace nhsim

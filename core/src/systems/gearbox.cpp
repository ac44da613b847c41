// Registration of the continuous gearbox driven by an asymmetric pendulum ([Celledoni2019] §4.4).
// Defaults are the paper's coefficients of eq. (24b): k = 1, a = 1, b = 1/5.
#include "nhsim/systems/gearbox.hpp"

#include <cmath>

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<Gearbox>>(
      Gearbox(params.at("k"), params.at("a"), params.at("b")));
}

}  // namespace

SystemEntry gearbox_entry() {
  SystemInfo info;
  info.name = "gearbox";
  info.description =
      "Continuous gearbox driven by an asymmetric pendulum on R^3: M = I, "
      "H = 1/2 |p|^2 + V with V = k/2 (q1^2 + q2^2) + a cos(q3) - b sin(2 q3) (the physical sign; "
      "eq. (24a) prints -V), constraint q1' + sin(q3) q2' = 0; canonical form only (no reduced "
      "form in the paper)";
  info.source = "[Celledoni2019] §4.4 eq. (24), Fig. 4; Modin & Verdier (ref. [27])";
  info.parameters = {
      ParameterInfo{"k", 1.0, "1", "spring stiffness of the shafts q1, q2", false, 0.0, 1e9},
      ParameterInfo{"a", 1.0, "1", "pendulum coefficient of cos(q3)", false, -1e9, 1e9},
      ParameterInfo{"b", 0.2, "1", "asymmetry coefficient of sin(2 q3)", false, -1e9, 1e9}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<Gearbox>(std::move(info), &make);
  // V = k/2 (q1^2 + q2^2) + a cos(q3) - b sin(2 q3) >= -|a| - |b| for k >= 0.
  entry.potential_lower_bound = [](const std::map<std::string, double>& parameters) {
    return -std::abs(parameters.at("a")) - std::abs(parameters.at("b"));
  };
  return entry;
}

}  // namespace nhsim

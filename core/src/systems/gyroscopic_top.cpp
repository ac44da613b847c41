// Registration of the gyroscopic top in director coordinates ([Kinon2023] §5.1). Defaults are the
// paper's data: m = 0.7069 kg, J1 = J2 = J3 = 5.3014e-4 kg m^2, l = 0.075 m, g = 9.81 m/s^2.
#include "nhsim/systems/gyroscopic_top.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  try {
    return std::make_unique<ModelImpl<GyroscopicTop>>(
        GyroscopicTop(params.at("m"), params.at("J1"), params.at("J2"), params.at("J3"),
                      params.at("l"), params.at("g")));
  } catch (const std::invalid_argument& e) {
    throw SpecError("parameters.J1", e.what());
  }
}

}  // namespace

SystemEntry gyroscopic_top_entry() {
  SystemInfo info;
  info.name = "gyroscopic_top";
  info.description =
      "Heavy top in director coordinates q = (phi, d1, d2, d3) in R^12, M = diag(m I, E1 I, E2 I, "
      "E3 I) with E_i = (J_j + J_k - J_i)/2, V = m g phi3, 9 holonomic constraints (orthonormal "
      "directors, tip fixed at the origin: phi = l d3); observables phi3, L3, kinetic_energy, "
      "potential_energy";
  info.source = "[Kinon2023] §5.1 eq. (58)-(69), Fig. 2-10";
  info.parameters = {
      ParameterInfo{"m", 0.7069, "kg", "mass of the top", false, 1e-9, 1e9},
      ParameterInfo{"J1", 5.3014e-4, "kg m^2",
                    "principal moment of inertia about d1 (centre of "
                    "mass)",
                    false, 1e-12, 1e9},
      ParameterInfo{"J2", 5.3014e-4, "kg m^2", "principal moment of inertia about d2", false, 1e-12,
                    1e9},
      ParameterInfo{"J3", 5.3014e-4, "kg m^2",
                    "principal moment of inertia about the symmetry "
                    "axis d3",
                    false, 1e-12, 1e9},
      ParameterInfo{"l", 0.075, "m", "distance from the fixed tip to the centre of mass", false,
                    1e-9, 1e9},
      ParameterInfo{"g", 9.81, "m/s^2", "gravitational acceleration (along -e3)", false, 0.0, 1e9}};
  info.invariants = {};
  return catalogue_entry<GyroscopicTop>(std::move(info), &make);
}

}  // namespace nhsim

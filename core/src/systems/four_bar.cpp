// Registration of the double four-bar linkage ([Kinon2023] §5.2). Defaults are the paper's data:
// five bars m = 1 kg, l = 1 m, gravity 9.81 m/s^2, dampers off (eta = 0; the damped run of
// Fig. 22-23 uses eta = 0.5 N s/m).
#include "nhsim/systems/four_bar.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<FourBar>>(
      FourBar(params.at("m"), params.at("l"), params.at("g"), params.at("eta")));
}

}  // namespace

SystemEntry four_bar_entry() {
  SystemInfo info;
  info.name = "four_bar";
  info.description =
      "Double four-bar linkage: five bars in planar director coordinates, q in R^30, "
      "M = diag(m I, E I, E I) per bar with E = m l^2/24, V = m g sum phi_2, 29 holonomic "
      "constraints (15 rigidity, 14 for the 7 revolute joints; ground pivots at (0,0), (l,0), "
      "(2l,0)), optional viscous dampers P1-P5 and P2-P6 (eta); observables x4, y4, v4x, L, "
      "kinetic_energy, potential_energy, dissipated_power, g_int_b1, gv_int_b1, g_ext_p4, "
      "gv_ext_p4";
  info.source = "[Kinon2023] §5.2 eq. (70)-(80), Fig. 11-23";
  info.parameters = {
      ParameterInfo{"m", 1.0, "kg", "mass of each bar", false, 1e-9, 1e9},
      ParameterInfo{"l", 1.0, "m", "length of each bar and spacing of the ground pivots", false,
                    1e-9, 1e9},
      ParameterInfo{"g", 9.81, "m/s^2", "gravitational acceleration (along -e2)", false, 0.0, 1e9},
      ParameterInfo{"eta", 0.0, "N s/m",
                    "damping constant of both dampers P1-P5, P2-P6 (0: undamped; paper: 0.5)",
                    false, 0.0, 1e9}};
  info.invariants = {};
  // At the default 1e-12 ggl's Newton iteration stalls at the first singular configuration
  // (t = 0.707 s of the upright start); 1e-9 passes them (the paper's tolerance).
  info.newton_tol_defaults = {{"ggl", 1e-9}};
  return catalogue_entry<FourBar>(std::move(info), &make);
}

}  // namespace nhsim

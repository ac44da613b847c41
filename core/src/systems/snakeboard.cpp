// Registration of the snakeboard ([Kobilarov2010] §6.2). The paper gives no parameter values for
// Fig. 4; the defaults m = 1 kg, l = 1 m, I = 0.5 kg m^2, J = 2 kg m^2 are ours (J large enough
// that the steering angle of the Fig. 4 run stays inside (0, pi/2), see snakeboard.hpp).
#include "nhsim/systems/snakeboard.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  const double m = params.at("m"), l = params.at("l"), inertia = params.at("I");
  if (!(inertia < m * l * l)) {
    throw SpecError("parameters.I", "must be < m l^2 (positive definite mass matrix)");
  }
  return std::make_unique<ModelImpl<Snakeboard>>(Snakeboard(m, l, inertia, params.at("J")));
}

}  // namespace

SystemEntry snakeboard_entry() {
  SystemInfo info;
  info.name = "snakeboard";
  info.description =
      "Snakeboard on S^1 x S^1 x SE(2), q = (psi, phi, theta, x, y) (rotor, steering, board "
      "pose), constant M, V = 0, wheel constraints eq. (34); control torques (u_psi, u_phi) on "
      "the shape variables from EnsembleSpec controls (2 inputs)";
  info.source = "[Kobilarov2010] §6.2 eq. (34)-(35), Fig. 4";
  info.parameters = {
      ParameterInfo{"m", 1.0, "kg", "mass of the board", false, 1e-9, 1e9},
      ParameterInfo{"l", 1.0, "m", "distance from the centre of the board to the wheels", false,
                    1e-9, 1e9},
      ParameterInfo{"I", 0.5, "kg m^2", "rotor moment of inertia (must be < m l^2)", false, 1e-9,
                    1e9},
      ParameterInfo{"J", 2.0, "kg m^2", "steering moment of inertia of one wheel pair", false, 1e-9,
                    1e9}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<Snakeboard>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V = 0
  return entry;
}

}  // namespace nhsim

// Registration of the Chaplygin sleigh about the centre of mass ([Kobilarov2010] §6.1). The paper
// gives no parameter values for Fig. 2; the defaults I = 1 kg m^2, m = 1 kg, a = 1 m are ours.
#include "nhsim/systems/chaplygin_sleigh_com.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<ChaplyginSleighCom>>(
      ChaplyginSleighCom(params.at("I"), params.at("m"), params.at("a")));
}

}  // namespace

SystemEntry chaplygin_sleigh_com_entry() {
  SystemInfo info;
  info.name = "chaplygin_sleigh_com";
  info.description =
      "Chaplygin sleigh on SE(2) about the centre of mass, q = (theta, x, y), M = diag(I, m, m), "
      "V = 0, skate at distance a behind the centre of mass: a theta' + sin(theta) x' - "
      "cos(theta) y' = 0; observables x_s, y_s (skate point (x - a cos theta, y - a sin theta))";
  info.source = "[Kobilarov2010] §6.1 eq. (29)-(33), Fig. 2";
  info.parameters = {
      ParameterInfo{"I", 1.0, "kg m^2", "moment of inertia about the centre of mass", false, 1e-9,
                    1e9},
      ParameterInfo{"m", 1.0, "kg", "mass of the sleigh", false, 1e-9, 1e9},
      ParameterInfo{"a", 1.0, "m", "distance from the centre of mass back to the skate", false, 0.0,
                    1e9}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<ChaplyginSleighCom>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V = 0
  return entry;
}

}  // namespace nhsim

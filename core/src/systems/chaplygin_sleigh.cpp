// Registration of the Chaplygin sleigh ([Celledoni2019] §4.2). Defaults are the paper's values of
// Fig. 3: J = 8 kg m^2, a = 1 m, m = 1 kg.
#include "nhsim/systems/chaplygin_sleigh.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<ChaplyginSleigh>>(
      ChaplyginSleigh(params.at("J"), params.at("a"), params.at("m")));
}

}  // namespace

SystemEntry chaplygin_sleigh_entry() {
  SystemInfo info;
  info.name = "chaplygin_sleigh";
  info.description =
      "Chaplygin sleigh on SE(2), q = (x1, x2, theta) (blade contact point and orientation), "
      "kinetic metric with the centre of mass at distance a along the blade, V = 0, knife-edge "
      "constraint -x1' sin(theta) + x2' cos(theta) = 0; reduced form on D* in the orthonormal "
      "adapted frame X1 = (J + m a^2)^-1/2 d/dtheta, X2 = m^-1/2 (cos(theta) d/dx1 + "
      "sin(theta) d/dx2), H = (rho1^2 + rho2^2) / 2";
  info.source = "[Celledoni2019] §4.2 eq. (22)-(23), Prop. 4.1, Fig. 3";
  info.parameters = {
      ParameterInfo{"J", 8.0, "kg m^2", "moment of inertia about the centre of mass", false, 1e-9,
                    1e9},
      ParameterInfo{"a", 1.0, "m",
                    "distance from the blade's contact point to the centre of mass (along the "
                    "blade)",
                    false, 0.0, 1e9},
      ParameterInfo{"m", 1.0, "kg", "mass of the sleigh", false, 1e-9, 1e9}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<ChaplyginSleigh>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V = 0
  return entry;
}

}  // namespace nhsim

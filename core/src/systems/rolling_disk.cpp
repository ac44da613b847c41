// Registration of the rolling disk ([Celledoni2019] §2 examples). The paper gives no numerical
// values: every parameter defaults to 1 (SI units) and must lie in [1e-9, 1e9].
#include "nhsim/systems/rolling_disk.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<RollingDisk>>(
      RollingDisk(params.at("m"), params.at("r"), params.at("J_theta"), params.at("J_phi")));
}

}  // namespace

SystemEntry rolling_disk_entry() {
  SystemInfo info;
  info.name = "rolling_disk";
  info.description =
      "Vertical disk rolling without slipping on a plane, q = (x1, x2, theta, phi), "
      "M = diag(m, m, J_theta, J_phi), V = 0, constraints x1' = r phi' cos(theta), "
      "x2' = r phi' sin(theta); reduced form on D* with the adapted frame "
      "X1 = r cos(theta) d/dx1 + r sin(theta) d/dx2 + d/dphi, X2 = d/dtheta; explicit solution "
      "available as integrator 'exact'";
  info.source = "[Celledoni2019] §2 (Example: Rolling disk), eq. (2), §3.2 example";
  info.parameters = {
      ParameterInfo{"m", 1.0, "kg", "mass of the disk", false, 1e-9, 1e9},
      ParameterInfo{"r", 1.0, "m", "radius of the disk", false, 1e-9, 1e9},
      ParameterInfo{"J_theta", 1.0, "kg m^2",
                    "moment of inertia about the vertical axis (heading angle theta)", false, 1e-9,
                    1e9},
      ParameterInfo{"J_phi", 1.0, "kg m^2",
                    "moment of inertia about the rolling axis (self-rotation angle phi)", false,
                    1e-9, 1e9}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<RollingDisk>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V = 0
  return entry;
}

}  // namespace nhsim

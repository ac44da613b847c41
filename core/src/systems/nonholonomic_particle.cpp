// Registration of the nonholonomic particle ([AnahorySimoes2022] Example 1). No parameters.
#include "nhsim/systems/nonholonomic_particle.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& /*params*/) {
  return std::make_unique<ModelImpl<NonholonomicParticle>>(NonholonomicParticle());
}

}  // namespace

SystemEntry nonholonomic_particle_entry() {
  SystemInfo info;
  info.name = "nonholonomic_particle";
  info.description =
      "Nonholonomic particle in R^3, q = (x, y, z), L = (x'^2 + y'^2 + z'^2) / 2, constraint "
      "z' - y x' = 0; reduced form on D* in the frame e1 = d/dx + y d/dz, e2 = d/dy, "
      "H = (rho1^2 / (1 + y^2) + rho2^2) / 2; closed-form flow eq. (19)-(20) as integrator "
      "'exact'; MLA discretisation of Example 3 (eq. (43)) as integrator 'mla'";
  info.source = "[AnahorySimoes2022] Examples 1-3, eq. (18)-(20), (25), (43), Figs. 2-3";
  info.parameters = {};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<NonholonomicParticle>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V = 0
  return entry;
}

}  // namespace nhsim

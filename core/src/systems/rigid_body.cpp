// Registration of the standard rotating rigid body in directors (seed 004 §3.5, eq. (56)-(68)).
#include "director_body_entry.hpp"
#include "stepper_dispatch.hpp"

namespace nhsim {
namespace {

std::optional<std::string> not_applicable(const std::string& id) {
  return integrator_not_applicable<RigidBody>(id);
}

}  // namespace

SystemEntry rigid_body_entry() {
  SystemEntry e;
  e.info.name = "rigid_body";
  e.info.description =
      "Standard rigid body with a fixed point, directors q = (d1, d2, d3) in R^9, p = M q', "
      "constant M (eq. (88)) from the Euler inertia E (default eq. (111)); 6 holonomic "
      "orthonormality constraints (NC = 6); material loads from EnsembleSpec loads (eq. (68)); "
      "observables Pi1, Pi2, Pi3, kinetic_energy, sam_1..3 (spatial angular momentum, conserved "
      "without loads), d3_1..3";
  e.info.source = "seed 004 §3.5 eq. (56)-(68), §5.1 eq. (85)-(91)";
  e.info.parameters = detail::director_body_parameters();
  e.info.invariants = {};
  e.info.integrators = applicable_integrators<RigidBody>();
  e.make = &detail::make_director_body<false>;
  e.not_applicable = &not_applicable;
  return e;
}

NHSIM_INSTANTIATE_STEPPER_FACTORY(RigidBody);

}  // namespace nhsim

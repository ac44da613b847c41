// Registration of the standard rotating rigid body in directors ([Gebhardt2020] §3.5, eq.
// (56)-(68)).
#include "catalogue_entry.hpp"
#include "director_body_entry.hpp"

namespace nhsim {

SystemEntry rigid_body_entry() {
  SystemInfo info;
  info.name = "rigid_body";
  info.description =
      "Standard rigid body with a fixed point, directors q = (d1, d2, d3) in R^9, p = M q', "
      "constant M (eq. (88)) from the Euler inertia E (default eq. (111)); 6 holonomic "
      "orthonormality constraints (NC = 6); material loads from EnsembleSpec loads (eq. (68)); "
      "observables Pi1, Pi2, Pi3, kinetic_energy, sam_1..3 (spatial angular momentum, conserved "
      "without loads), d3_1..3";
  info.source = "[Gebhardt2020] §3.5 eq. (56)-(68), §5.1 eq. (85)-(91)";
  info.parameters = detail::director_body_parameters();
  info.invariants = {};
  return catalogue_entry<RigidBody>(std::move(info), &detail::make_director_body<false>);
}

}  // namespace nhsim

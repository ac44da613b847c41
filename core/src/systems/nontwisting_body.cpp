// Registration of the rotating rigid body in the non-twisting frame ([Gebhardt2020] §4, §4.2, §6).
#include "catalogue_entry.hpp"
#include "director_body_entry.hpp"

namespace nhsim {

SystemEntry nontwisting_body_entry() {
  SystemInfo info;
  info.name = "nontwisting_body";
  info.description =
      "Rigid body with a fixed point in the non-twisting frame, directors q = (d1, d2, d3) in "
      "R^9, p = M q', constant M (eq. (88)) from the Euler inertia E (default eq. (111)); "
      "6 holonomic orthonormality constraints + w . d3 = 0 (NC = 7); material loads from "
      "EnsembleSpec loads (eq. (84)); observables Pi1, Pi2, Pi3, kinetic_energy, sam_1..3, "
      "d3_1..3";
  info.source = "[Gebhardt2020] §4 Thm 5 eq. (69), §4.2 eq. (80)-(84), §6 eq. (111)-(118)";
  info.parameters = detail::director_body_parameters();
  info.invariants = {};
  return catalogue_entry<NontwistingBody>(std::move(info), &detail::make_director_body<true>);
}

}  // namespace nhsim

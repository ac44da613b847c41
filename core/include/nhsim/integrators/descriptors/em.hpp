// The descriptor of `em`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/em.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class EmMethod;

struct EmIntegrator {
  static constexpr const char* kDescription =
      "Energy-momentum algorithm for the director rigid body (midpoint momenta, AVF constraint "
      "Jacobians): standard body eq. (85)-(91), non-twisting body eq. (92)-(95); exact kinetic "
      "energy without loads, Pi1, Pi2 of the non-twisting body, g(q) = 0 at the nodes; loads "
      "at the midpoint";
  static constexpr const char* kSource = "[Gebhardt2020] §5, eq. (85)-(95)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-10;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "em";
  static constexpr bool kTakesLoads = true;
  template <class S>
  static constexpr bool kApplies = DirectorCoordinates<S>;
  static constexpr const char* kRequirement =
      "a director rigid body ([Gebhardt2020] §3.5/§4.2: constant M, quadratic holonomic "
      "constraints "
      "g(q), constraint rows linear in q)";
  template <class S>
  using Method = EmMethod<S>;
};

}  // namespace nhsim

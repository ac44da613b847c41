// The descriptor of `nh_rattle_projected`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in
// nhsim/integrators/nh_rattle_projected.hpp; this header only names it, so that the registry and
// the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class NhRattleProjectedMethod;

struct NhRattleProjectedIntegrator {
  static constexpr const char* kDescription =
      "Projected nonholonomic RATTLE with control forces, eq. (14)-(16): momentum-jump form "
      "p_k+1/2 = (Id - 2 Q^T) p_k-1/2 + h P^T f, explicit, second order";
  static constexpr const char* kSource = "[Kobilarov2010] eq. (11)-(16)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "nh_rattle_projected";
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>&& ConstantMass<S>;
  static constexpr const char* kRequirement = "a canonical form with a constant mass matrix";
  template <class S>
  using Method = NhRattleProjectedMethod<S>;
};

}  // namespace nhsim

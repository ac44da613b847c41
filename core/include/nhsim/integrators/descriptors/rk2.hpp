// The descriptor of `rk2`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/rk2.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk2Method;

struct Rk2Integrator {
  static constexpr const char* kDescription =
      "Explicit midpoint rule on the canonical index-1 equations (multiplier from the "
      "differentiated constraint): the non-geometric second-order baseline of [Kobilarov2010]";
  static constexpr const char* kSource = "[Kobilarov2010] §3, §6 (RK2 baseline)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "rk2";
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>&& ConstantMass<S> &&
                                   (ConstraintDot<S> || ComplexStepConstraint<S>);
  static constexpr const char* kRequirement =
      "a canonical form with a constant mass matrix, and d mu / dt (constraint_dot, or mu "
      "evaluable at a complex q for the complex step)";
  template <class S>
  using Method = Rk2Method<S>;
};

}  // namespace nhsim

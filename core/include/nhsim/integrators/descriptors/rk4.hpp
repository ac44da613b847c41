// The descriptor of `rk4`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/rk4.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include <type_traits>

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk4Method;
template <class S>
class Rk4CanonicalMethod;

struct Rk4Integrator {
  static constexpr const char* kDescription =
      "Classical explicit 4th-order Runge-Kutta, the non-geometric baseline: on the reduced ODE "
      "eq. (9) where the system has a reduced form, else on the canonical index-1 equations of "
      "rk2 (the constraint then drifts at O(h^4))";
  static constexpr const char* kSource = "[Celledoni2019] eq. (9); [Kobilarov2010] §3";
  static constexpr int kOrder = 4;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "rk4";
  /// The canonical form takes control forces and loads; the reduced form has none to take (no
  /// system with a reduced form has controls: Rk4Method has no term for them).
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = ReducedForm<S> ||
                                   (CanonicalForm<S> && ConstantMass<S> &&
                                    (ConstraintDot<S> || ComplexStepConstraint<S>));
  static constexpr const char* kRequirement =
      "a reduced form on D* (adapted frame), or a canonical form with a constant mass matrix and "
      "d mu / dt (constraint_dot, or mu evaluable at a complex q for the complex step)";
  template <class S>
  using Method = std::conditional_t<ReducedForm<S>, Rk4Method<S>, Rk4CanonicalMethod<S>>;
};

}  // namespace nhsim

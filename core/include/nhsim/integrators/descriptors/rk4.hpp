// The descriptor of `rk4`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/rk4.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk4Method;

struct Rk4Integrator {
  static constexpr const char* kDescription =
      "Classical explicit 4th-order Runge-Kutta on the reduced ODE eq. (9): the non-geometric "
      "baseline";
  static constexpr const char* kSource = "[Celledoni2019] eq. (9)";
  static constexpr int kOrder = 4;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "rk4";
  template <class S>
  static constexpr bool kApplies = ReducedForm<S>;
  static constexpr const char* kRequirement = "a reduced form on D* (adapted frame)";
  template <class S>
  using Method = Rk4Method<S>;
};

}  // namespace nhsim

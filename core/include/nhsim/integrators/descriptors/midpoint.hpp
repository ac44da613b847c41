// The descriptor of `midpoint`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/midpoint.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, class DG>
class DiscreteGradientMethod;  // nhsim/integrators/discrete_gradient.hpp
struct MidpointGradient;

template <class S>
using MidpointMethod = DiscreteGradientMethod<S, MidpointGradient>;

struct MidpointIntegrator {
  static constexpr const char* kDescription =
      "Implicit midpoint rule on the reduced ODE eq. (9): eq. (14) with grad H at the midpoint; "
      "energy preserving only for quadratic H (Remark 3.2)";
  static constexpr const char* kSource = "[Celledoni2019] Remark 3.2, §3.2 rolling disk example";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "midpoint";
  template <class S>
  static constexpr bool kApplies = ReducedForm<S>;
  static constexpr const char* kRequirement = "a reduced form on D* (adapted frame)";
  template <class S>
  using Method = MidpointMethod<S>;
};

}  // namespace nhsim

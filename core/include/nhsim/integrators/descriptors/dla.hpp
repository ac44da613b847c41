// The descriptor of `dla`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/dla.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, class D>
class MomentumMatchingMethod;  // nhsim/integrators/discrete_momentum_matching.hpp
template <class S>
class DlaDiscretisation;

template <class S>
using DlaMethod = MomentumMatchingMethod<S, DlaDiscretisation<S>>;

struct DlaIntegrator {
  static constexpr const char* kDescription =
      "Discrete Lagrange-d'Alembert integrator ([Cortes2001]): midpoint discrete "
      "Lagrangian, midpoint discrete constraint, multiplier at the node; two-step method "
      "started from (q0, p0) by the discrete Legendre transform";
  static constexpr const char* kSource =
      "[Cortes2001]; [AnahorySimoes2022] Remark 5.2, Figs. 2, 3, 5, 6; [Gebhardt2020] "
      "Tables 7-9";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "dla";
  static constexpr bool kTakesLoads = true;
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>&& ConstantMass<S>;
  static constexpr const char* kRequirement = "a canonical form with a constant mass matrix";
  template <class S>
  using Method = DlaMethod<S>;
};

}  // namespace nhsim

// The descriptor of `i_dla`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/i_dla.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Where IDlaMethod imposes the constraint (nhsim/integrators/i_dla.hpp, "Which constraint").
enum class IDlaConstraint {
  kMidpointDiscrete,  ///< mu(qbar) (q1 - q0) = 0: `i_dla`
  kNodeMomentum,      ///< mu(q1) M^-1 p1 = 0: the position-momentum form, for comparison
};

template <class S, IDlaConstraint kConstraint>
class IDlaMethod;

struct IDlaIntegrator {
  static constexpr const char* kDescription =
      "Implicit reversible discrete Lagrange-d'Alembert integrator with midpoint discrete "
      "Lagrangian and midpoint discrete constraint, in canonical coordinates";
  static constexpr const char* kSource =
      "[Celledoni2019] §4.1.3, Fig. 2; [McLachlan2006]; [Cortes2001]";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "i_dla";
  template <class S>
  static constexpr bool kApplies = ConstantMass<S>;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = IDlaMethod<S, IDlaConstraint::kMidpointDiscrete>;
};

}  // namespace nhsim

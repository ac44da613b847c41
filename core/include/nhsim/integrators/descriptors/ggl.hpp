// The descriptor of `ggl`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/ggl.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class GglMethod;

struct GglIntegrator {
  static constexpr const char* kDescription =
      "GGL variational integrator: discrete Livens/GGL principle, position-level constraints at "
      "the step end, velocity-level ones at the intermediate point q + h v; first order, "
      "symplectic, momentum maps exact; viscous dissipation (eq. 57) when the system has a "
      "dissipation matrix";
  static constexpr const char* kSource = "[Kinon2023] §4.1 eq. (39)-(41), §4.3 eq. (57)";
  static constexpr int kOrder = 1;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-12;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "ggl";
  template <class S>
  static constexpr bool kApplies = QuadraticHolonomicConstraints<S>;
  static constexpr const char* kRequirement =
      "holonomic constraints g(q) with constant Hessians (holonomic_hessian_contract), no "
      "nonholonomic rows, and a constant mass matrix";
  template <class S>
  using Method = GglMethod<S>;
};

}  // namespace nhsim

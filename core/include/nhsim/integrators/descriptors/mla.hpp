// The descriptor of `mla`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/mla.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, class D>
class MomentumMatchingMethod;  // nhsim/integrators/discrete_momentum_matching.hpp
template <class S>
class MlaDiscretisation;

template <class S>
using MlaMethod = MomentumMatchingMethod<S, MlaDiscretisation<S>>;

struct MlaIntegrator {
  static constexpr const char* kDescription =
      "Modified Lagrange-d'Alembert integrator eq. (41)-(42) with the system's discrete "
      "Lagrangian, discrete forces and discrete constraint; two-step method started from "
      "(q0, p0) by the discrete Legendre transform";
  static constexpr const char* kSource = "[AnahorySimoes2022] §5.4 eq. (41)-(42), Examples 3-5";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "mla";
  template <class S>
  static constexpr bool kApplies = HasMlaDiscretisation<S>;
  static constexpr const char* kRequirement =
      "a modified Lagrange-d'Alembert discretisation (discrete Lagrangian, discrete forces, "
      "discrete constraint) of the system ([AnahorySimoes2022] Examples 3-5)";
  template <class S>
  using Method = MlaMethod<S>;
};

}  // namespace nhsim

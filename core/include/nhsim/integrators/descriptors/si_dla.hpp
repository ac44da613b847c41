// The descriptor of `si_dla`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/si_dla.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class SiDlaMethod;

struct SiDlaIntegrator {
  static constexpr const char* kDescription =
      "Semi-implicit reversible discrete Lagrange-d'Alembert ([McLachlan2006] eq. (4.18)) in "
      "canonical coordinates";
  static constexpr const char* kSource = "[Celledoni2019] Fig. 2; [McLachlan2006] eq. (4.18)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "si_dla";
  template <class S>
  static constexpr bool kApplies = ConstantMass<S>;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = SiDlaMethod<S>;
};

}  // namespace nhsim

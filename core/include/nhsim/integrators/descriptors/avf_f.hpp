// The descriptor of `avf_f`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/avf_f.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class AvfFMethod;

struct AvfFIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (15) on the canonical equations with multipliers at the "
      "midpoint and the averaged vector field discrete gradient eq. (11), 8-point "
      "Gauss-Legendre: energy preserving, constraint mu(qbar) vbar = 0 kept, mu(q) M^-1 p = 0 "
      "only approximately";
  static constexpr const char* kSource = "[Celledoni2019] eq. (11), (15)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "avf_f";
  template <class S>
  static constexpr bool kApplies = ConstantMass<S>;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = AvfFMethod<S>;
};

}  // namespace nhsim

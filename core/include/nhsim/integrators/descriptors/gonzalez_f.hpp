// The descriptor of `gonzalez_f`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/gonzalez_f.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class GonzalezFMethod;

struct GonzalezFIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (15) on the canonical equations with multipliers and the "
      "Gonzalez discrete gradient: energy preserving, constraint kept only approximately";
  static constexpr const char* kSource = "[Celledoni2019] eq. (12), (15)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "gonzalez_f";
  template <class S>
  static constexpr bool kApplies = ConstantMass<S>;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = GonzalezFMethod<S>;
};

}  // namespace nhsim

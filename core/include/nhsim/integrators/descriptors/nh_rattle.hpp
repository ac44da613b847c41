// The descriptor of `nh_rattle`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/nh_rattle.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class NhRattleMethod;

struct NhRattleIntegrator {
  static constexpr const char* kDescription =
      "Nonholonomic RATTLE eq. (10): explicit, second order, reversible; exact energy for V = 0 "
      "without controls; applied forces B(q) u(t) - grad V";
  static constexpr const char* kSource = "[Kobilarov2010] eq. (9)-(10), Remark 1, Theorem 2";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "nh_rattle";
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>&& ConstantMass<S>;
  static constexpr const char* kRequirement = "a canonical form with a constant mass matrix";
  template <class S>
  using Method = NhRattleMethod<S>;
};

}  // namespace nhsim

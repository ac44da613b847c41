// The descriptors of `rdp_exp` and `rdp_cay`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/rdp.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

enum class Retraction { kExp, kCay };

template <class S, Retraction R>
class RdpMethod;

struct RdpExpIntegrator {
  static constexpr const char* kDescription =
      "Reduced d'Alembert-Pontryagin integrator eq. (27)-(28) on M x SE(2) with tau = exp and "
      "the truncated dexp^-1 of eq. (42); alpha = 1/2; implicit, second order";
  static constexpr const char* kSource = "[Kobilarov2010] eq. (27)-(28), App. A.1, App. B eq. (42)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-13;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "rdp_exp";
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = SE2Symmetry<S>;
  static constexpr const char* kRequirement =
      "a configuration space M x SE(2) with a nonholonomic connection (kSE2Symmetry)";
  template <class S>
  using Method = RdpMethod<S, Retraction::kExp>;
};

struct RdpCayIntegrator {
  static constexpr const char* kDescription =
      "Reduced d'Alembert-Pontryagin integrator eq. (27)-(28) on M x SE(2) with tau = cay and "
      "the exact dcay^-1 of eq. (44); alpha = 1/2; implicit, second order";
  static constexpr const char* kSource = "[Kobilarov2010] eq. (27)-(28), App. A.2, App. B eq. (44)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-13;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "rdp_cay";
  static constexpr bool kTakesControls = true;
  template <class S>
  static constexpr bool kApplies = SE2Symmetry<S>;
  static constexpr const char* kRequirement =
      "a configuration space M x SE(2) with a nonholonomic connection (kSE2Symmetry)";
  template <class S>
  using Method = RdpMethod<S, Retraction::kCay>;
};

}  // namespace nhsim

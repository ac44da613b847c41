// The descriptors of `gonzalez_r` and `gonzalez_r_fd`: id, metadata and the requirement on the
// system (nhsim/integrators/registry.hpp). The method itself is in
// nhsim/integrators/gonzalez_r.hpp; this header only names it, so that the registry and the
// dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class GonzalezRMethod;
template <class S>
class GonzalezRFdMethod;

struct GonzalezRIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (14) with the Gonzalez discrete gradient on the reduced "
      "equations (9) built from canonical data: adapted frame from a Householder QR of the "
      "constraint matrix with derivatives by Algorithm 1 (signs fixed within a step)";
  static constexpr const char* kSource = "[Celledoni2019] §3.3, eq. (16)-(18), Algorithm 1";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "gonzalez_r";
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>;
  static constexpr const char* kRequirement = "a canonical form (M, V, mu on T*Q)";
  template <class S>
  using Method = GonzalezRMethod<S>;
};

struct GonzalezRFdIntegrator {
  static constexpr const char* kDescription =
      "gonzalez_r with dX/dq by central differences of the QR frame with increment h "
      "(Remark 3.5)";
  static constexpr const char* kSource = "[Celledoni2019] §3.3, eq. (16)-(18), Remark 3.5";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "gonzalez_r_fd";
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>;
  static constexpr const char* kRequirement = "a canonical form (M, V, mu on T*Q)";
  template <class S>
  using Method = GonzalezRFdMethod<S>;
};

}  // namespace nhsim

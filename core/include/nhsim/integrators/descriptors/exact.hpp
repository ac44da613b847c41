// The descriptor of `exact`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/exact.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class ExactMethod;

struct ExactIntegrator {
  static constexpr const char* kDescription =
      "The explicit solution of the equations of motion, stepped over h (exact up to "
      "round-off for any h); order is reported as 0 = no truncation error";
  static constexpr const char* kSource =
      "[Celledoni2019] §2.1.2 rolling disk example; [AnahorySimoes2022] eq. (19)-(20) nonholonomic "
      "particle";
  static constexpr int kOrder = 0;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "exact";
  template <class S>
  static constexpr bool kApplies = ExactFlow<S>&& ReducedForm<S>;
  static constexpr const char* kRequirement =
      "an explicit solution of the equations of motion (exact flow) in reduced coordinates";
  template <class S>
  using Method = ExactMethod<S>;
};

}  // namespace nhsim

// The descriptor of `itoh_abe`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/itoh_abe.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, class DG>
class DiscreteGradientMethod;  // nhsim/integrators/discrete_gradient.hpp
struct ItohAbeGradient;

template <class S>
using ItohAbeMethod = DiscreteGradientMethod<S, ItohAbeGradient>;

struct ItohAbeIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (14) on the reduced system with the coordinate increment "
      "(Itoh-Abe) discrete gradient eq. (13); first order (not symmetric), energy preserving";
  static constexpr const char* kSource = "[Celledoni2019] eq. (13), (14); Itoh & Abe 1988";
  static constexpr int kOrder = 1;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "itoh_abe";
  template <class S>
  static constexpr bool kApplies = ReducedForm<S>;
  static constexpr const char* kRequirement = "a reduced form on D* (adapted frame)";
  template <class S>
  using Method = ItohAbeMethod<S>;
};

}  // namespace nhsim

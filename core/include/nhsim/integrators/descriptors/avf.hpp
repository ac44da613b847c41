// The descriptor of `avf`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/avf.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, class DG>
class DiscreteGradientMethod;  // nhsim/integrators/discrete_gradient.hpp
struct AvfGradient;

template <class S>
using AvfMethod = DiscreteGradientMethod<S, AvfGradient>;

struct AvfIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (14) on the reduced system with the averaged vector field "
      "discrete gradient eq. (11), 8-point Gauss-Legendre";
  static constexpr const char* kSource = "[Celledoni2019] eq. (11), (14)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "avf";
  template <class S>
  static constexpr bool kApplies = ReducedForm<S>;
  static constexpr const char* kRequirement = "a reduced form on D* (adapted frame)";
  template <class S>
  using Method = AvfMethod<S>;
};

}  // namespace nhsim

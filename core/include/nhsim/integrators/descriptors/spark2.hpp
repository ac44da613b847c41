// The descriptor of `spark2`: id, metadata and the requirement on the system
// (nhsim/integrators/registry.hpp). The method itself is in nhsim/integrators/spark2.hpp; this
// header only names it, so that the registry and the dispatch do not recompile when it changes.
#pragma once

#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Spark2Method;

struct Spark2Integrator {
  static constexpr const char* kDescription =
      "2-stage Lobatto IIIA-IIIB SPARK method for the index-2 DAE (6c-d) in canonical "
      "coordinates, constraint kept at the step end point";
  static constexpr const char* kSource =
      "[Celledoni2019] §4.1.3, Fig. 2; Jay 2003 (BIT 43:93-106); Jay 1998 (SIAM J. Sci. Comput. "
      "20)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "spark2";
  template <class S>
  static constexpr bool kApplies = ConstantMass<S>;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = Spark2Method<S>;
};

}  // namespace nhsim

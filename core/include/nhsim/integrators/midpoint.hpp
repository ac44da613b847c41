// `midpoint`: the implicit midpoint rule on the reduced system eq. (9) of [Celledoni2019],
//   zeta' = zeta + h Pi(zbar) grad H(zbar),   zbar = (zeta + zeta') / 2,
// written as the discrete gradient scheme eq. (14) with Pi~ = Pi(zbar) and the "discrete
// gradient" grad H(zbar). That is a true discrete gradient (eq. (10a)) only for quadratic H;
// then gonzalez, avf (and itoh_abe for separable quadratic H) coincide with it (Remark 3.2).
// Second order and symmetric; energy preserving only for quadratic H.
#pragma once

#include "nhsim/integrators/descriptors/midpoint.hpp"
#include "nhsim/integrators/discrete_gradient.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

struct MidpointGradient {
  template <class S>
  struct Workspace {
    explicit Workspace(const S& /*s*/) {}
  };

  /// out = grad H(zbar), zbar = (z0 + z1) / 2 (all vectors length nz).
  template <class S, class W, class VecZ>
  static void eval(const S& sys, W& /*ws*/, const VecZ& /*z0*/, const VecZ& /*z1*/, double /*H0*/,
                   const VecZ& zbar, VecZ& out) {
    sys.reduced_gradient(zbar, out);
  }
};

}  // namespace nhsim

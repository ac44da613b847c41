// `avf`: the discrete gradient method eq. (14) of [Celledoni2019] with the mean value (averaged
// vector field) discrete gradient, [Celledoni2019] eq. (11):
//   dbarH(x, x') = int_0^1 grad H((1 - s) x + s x') ds,   Pi~ = Pi((x + x') / 2).
//
// Quadrature: 8-point Gauss-Legendre on [0, 1], exact for polynomials of degree <= 15. For the
// chaotic quartic system grad H is polynomial (degree 3) except the kinetic part with
// g^ab(w), which is rational in s with complex poles at distance >= 1 / |w' - w| from [0, 1]
// (1 + |w(s)|^2 >= 1). With |w' - w| ~ h |xi| the Gauss-Legendre error is ~ rho^-16 with
// rho ~ 4 / (h |xi|): below 1e-16 for h |xi| <= 0.5 (e.g. h <= 0.2 at H = 3.06, |xi| <= 2.5).
// The energy error per step is that quadrature error times |x' - x|, i.e. round-off there.
#pragma once

#include <array>

#include "nhsim/integrators/descriptors/avf.hpp"
#include "nhsim/integrators/discrete_gradient.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

struct AvfGradient {
  /// Gauss-Legendre nodes and weights on [0, 1].
  static constexpr int kNodes = 8;
  static constexpr std::array<double, 4> kX = {0.1834346424956498, 0.5255324099163290,
                                               0.7966664774136267, 0.9602898564975363};
  static constexpr std::array<double, 4> kW = {0.3626837833783620, 0.3137066458778873,
                                               0.2223810344533745, 0.1012285362903763};

  template <class S>
  struct Workspace {
    explicit Workspace(const S& s) : x(s.nz()), g(s.nz()) {}
    typename S::VecZ x, g;
  };

  /// out = int_0^1 grad H(z0 + s (z1 - z0)) ds by the rule above (all vectors length nz).
  template <class S, class W, class VecZ>
  static void eval(const S& sys, W& ws, const VecZ& z0, const VecZ& z1, double /*H0*/,
                   const VecZ& /*zbar*/, VecZ& out) {
    out.setZero();
    for (int k = 0; k < 4; ++k) {
      for (const double sgn : {-1.0, 1.0}) {
        const double s = 0.5 * (1.0 + sgn * kX[k]);
        ws.x = (1.0 - s) * z0 + s * z1;
        sys.reduced_gradient(ws.x, ws.g);
        out += (0.5 * kW[k]) * ws.g;
      }
    }
  }
};

}  // namespace nhsim

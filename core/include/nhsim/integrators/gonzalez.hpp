// `gonzalez`: the discrete gradient method eq. (14) of [Celledoni2019] with the Gonzalez (midpoint)
// discrete gradient, [Celledoni2019] eq. (12):
//   dbarH(x, x') = grad H(xbar) + [H(x') - H(x) - grad H(xbar).(x' - x)] / |x' - x|^2 (x' - x),
// xbar = (x + x') / 2, and Pi~ = Pi(xbar). Second order, symmetric, energy preserving.
#pragma once

#include "nhsim/integrators/descriptors/gonzalez.hpp"
#include "nhsim/integrators/discrete_gradient.hpp"
#include "nhsim/integrators/gonzalez_quotient.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

struct GonzalezGradient {
  template <class S>
  struct Workspace {
    explicit Workspace(const S& s) : d(s.nz()) {}
    typename S::VecZ d;
  };

  /// out = dbarH(z0, z1) of eq. (12); H0 = H(z0), zbar = (z0 + z1) / 2 (all length nz).
  /// The correction term is skipped for a tiny step at round-off (gonzalez_coefficient).
  template <class S, class W, class VecZ>
  static void eval(const S& sys, W& ws, const VecZ& z0, const VecZ& z1, double H0, const VecZ& zbar,
                   VecZ& out) {
    sys.reduced_gradient(zbar, out);
    ws.d = z1 - z0;
    const double c = gonzalez_coefficient(sys.reduced_hamiltonian(z1), H0, out.dot(ws.d),
                                          ws.d.squaredNorm(), zbar.squaredNorm(), out.dot(zbar));
    out += c * ws.d;
  }
};

}  // namespace nhsim

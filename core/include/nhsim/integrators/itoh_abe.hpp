// `itoh_abe`: the discrete gradient method eq. (14) of [Celledoni2019] with the coordinate
// increment (Itoh-Abe) discrete gradient, [Celledoni2019] eq. (13):
//   dbarH(x, x')_i = [H(x'_1..x'_i, x_{i+1}..x_N) - H(x'_1..x'_{i-1}, x_i..x_N)] / (x'_i - x_i),
// and dH/dx_i at (x'_1..x'_{i-1}, x_i, x_{i+1}..x_N) when x'_i = x_i; Pi~ = Pi((x + x') / 2).
//
// The discrete gradient is not symmetric (dbarH(x, x') != dbarH(x', x) in general), so the
// method is not time-symmetric and only first order ([Celledoni2019] §3.2 needs both symmetries for
// order 2). Measured on the chaotic quartic system (t = 10, h = 0.02 / 2^k): order 1.0. For a
// separable quadratic H = sum a_j x_j^2 it coincides with the implicit midpoint rule (Remark
// 3.2) and is then second order, e.g. on the rolling disk.
#pragma once

#include <algorithm>
#include <cmath>

#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/descriptors/itoh_abe.hpp"
#include "nhsim/integrators/discrete_gradient.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

struct ItohAbeGradient {
  template <class S>
  struct Workspace {
    explicit Workspace(const S& s) : y(s.nz()), g(s.nz()) {}
    typename S::VecZ y, g;
  };

  /// Relative increment above which component i is the difference quotient of eq. (13).
  static constexpr double kQuotientThreshold = 0.1;

  /// out = dbarH(z0, z1) of eq. (13); H0 = H(z0) (all vectors length nz).
  ///
  /// Evaluation. With y = (x'_1..x'_{i-1}, x_i..x_N), component i is
  ///   [H(y + d e_i) - H(y)] / d = int_0^1 dH/dx_i(y + s d e_i) ds,   d = x'_i - x_i,
  /// (the fundamental theorem of calculus; for d = 0 both are the paper's dH/dx_i(y)).
  /// * |d| >= 0.1 max(1, |x_i|): the difference quotient, as printed. Its cancellation error
  ///   ~ 2 eps |H| / |d| <= 20 eps |H| max(...)^-1 is harmless there.
  /// * otherwise: the integral by 8-point Gauss-Legendre (the nodes of `avf`). The quotient
  ///   would lose eps |H| / |d| to cancellation (1e-11 relative for |d| = 1e-5, 0/0 for d = 0),
  ///   and that noise, times h, sits in the residual of the implicit equation: the Newton
  ///   iteration then stagnates far above its 1e-14 tolerance (observed on the chaotic quartic
  ///   system with the quotient used down to |d| = 1e-8). The rule is exact for polynomials of
  ///   degree <= 15 in x_i and, for analytic H with singularities at distance >= R from the
  ///   segment, errs by ~ (|d| / 4R)^16: below round-off for |d| < 0.1 R, so eq. (10a)
  ///   (energy preservation) still holds to round-off. For d = 0 every node is y and the
  ///   result is dH/dx_i(y), the paper's definition.
  /// The running value H(x'_1..x'_i, x_{i+1}..) is re-evaluated after each component, so
  /// consecutive quotients telescope exactly.
  template <class S, class W, class VecZ>
  static void eval(const S& sys, W& ws, const VecZ& z0, const VecZ& z1, double H0,
                   const VecZ& /*zbar*/, VecZ& out) {
    ws.y = z0;
    double h_prev = H0;
    const int nz = sys.nz();
    for (int i = 0; i < nz; ++i) {
      const double d = z1(i) - z0(i);
      if (std::abs(d) >= kQuotientThreshold * std::max(1.0, std::abs(z0(i)))) {
        ws.y(i) = z1(i);
        const double h_new = sys.reduced_hamiltonian(ws.y);
        out(i) = (h_new - h_prev) / d;
        h_prev = h_new;
      } else {
        double acc = 0.0;
        for (int k = 0; k < 4; ++k) {
          for (const double sgn : {-1.0, 1.0}) {
            ws.y(i) = z0(i) + 0.5 * (1.0 + sgn * AvfGradient::kX[k]) * d;
            sys.reduced_gradient(ws.y, ws.g);
            acc += AvfGradient::kW[k] * ws.g(i);
          }
        }
        out(i) = 0.5 * acc;
        ws.y(i) = z1(i);
        h_prev = sys.reduced_hamiltonian(ws.y);
      }
    }
  }
};

}  // namespace nhsim

// Internal: the lane kernels of the discrete gradient methods gonzalez, avf, midpoint and itoh_abe
// on the chaotic quartic system (n = 3): one step of W lanes through the simplified Newton
// iteration on each lane's reused inverse Jacobian (DiscreteGradientMethod<ChaoticQuartic<3>,
// DG>::step and the first attempt of SimplifiedNewton::solve,
// core/include/nhsim/integrators/discrete_gradient.hpp, newton.hpp; DG = GonzalezGradient,
// AvfGradient, MidpointGradient or ItohAbeGradient).
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
// Where the scalar step uses an Eigen reduction, the order is the one Eigen 3.4 takes in the
// library's own (SSE2, two doubles per packet) build, written out below. The iteration is
// lane_newton.hpp's: a lane that would leave its first attempt is handed back untouched, and its
// caller steps it with the scalar method.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "lane_newton.hpp"

namespace {

/// Eigen's sum of the 13 products a_j b_j of a vectorised 13-vector dot product (dot,
/// squaredNorm): six packets [a_2i b_2i, a_2i+1 b_2i+1] summed as a tree ((p0 + (p1 + p2)) +
/// (p3 + (p4 + p5))), the packet's two halves added, then the 13th product.
template <int W>
inline void dot13(const typename Lanes<W>::D* a, const typename Lanes<W>::D* b,
                  typename Lanes<W>::D& sum) {
  using D = typename Lanes<W>::D;
  D e[13];
  for (int j = 0; j < 13; ++j) e[j] = a[j] * b[j];
  const D even = (e[0] + (e[2] + e[4])) + (e[6] + (e[8] + e[10]));
  const D odd = (e[1] + (e[3] + e[5])) + (e[7] + (e[9] + e[11]));
  sum = (even + odd) + e[12];
}

/// H(zeta) of W lanes (ChaoticQuartic::reduced_hamiltonian; potential's squaredNorm of the 7
/// coordinates is Eigen's: three packets p0 + (p1 + p2), halves added, then q_6^2).
template <int W>
inline void reduced_hamiltonian(const typename Lanes<W>::D* z, typename Lanes<W>::D& out) {
  using D = typename Lanes<W>::D;
  const D zero = D{} + 0.0;
  D kin = zero, we = zero, ww = zero;
  for (int i = 0; i < 3; ++i) {
    const D xi = z[7 + i], eta = z[10 + i], wi = z[1 + i];
    kin += xi * xi + eta * eta;
    we += wi * eta;
    ww += wi * wi;
  }
  D s =
      ((z[0] * z[0] + (z[2] * z[2] + z[4] * z[4])) + (z[1] * z[1] + (z[3] * z[3] + z[5] * z[5]))) +
      z[6] * z[6];
  s += z[4] * z[4] * z[5] * z[5];
  for (int i = 0; i < 3; ++i) s += z[1 + i] * z[1 + i] * z[4 + i] * z[4 + i];
  out = 0.5 * (kin - we * we / (1.0 + ww)) + 0.5 * s;
}

/// dg = dbarH(zeta, x) of W lanes with the Gonzalez discrete gradient, [Celledoni2019] eq. (12)
/// (GonzalezGradient::eval, gonzalez_coefficient); h0 = H(zeta), zbar = (zeta + x) / 2,
/// k = kappa(zbar).
struct GonzalezLaneGradient {
  template <int W>
  static void eval(const typename Lanes<W>::D* z, const typename Lanes<W>::D* x,
                   const typename Lanes<W>::D& h0, const typename Lanes<W>::D* zbar,
                   const typename Lanes<W>::D& k, typename Lanes<W>::D* dg) {
    using D = typename Lanes<W>::D;
    D d[13];
    reduced_gradient<W>(zbar, k, dg);
    for (int j = 0; j < 13; ++j) d[j] = x[j] - z[j];
    // gonzalez_coefficient(H(x), h0, dg.d, d.d, zbar.zbar, dg.zbar)
    D h1, gd, dd, zz, gz;
    reduced_hamiltonian<W>(x, h1);
    dot13<W>(dg, d, gd);
    dot13<W>(d, d, dd);
    dot13<W>(zbar, zbar, zz);
    dot13<W>(dg, zbar, gz);
    D c;
    gonzalez_coefficient<W>(h1, h0, gd, dd, zz, gz, c);
    for (int j = 0; j < 13; ++j) dg[j] += c * d[j];
  }
};

/// dg = int_0^1 grad H(zeta + s (x - zeta)) ds of W lanes by 8-point Gauss-Legendre, the mean
/// value discrete gradient, [Celledoni2019] eq. (11) (AvfGradient::eval, its nodes in the same
/// order).
struct AvfLaneGradient {
  template <int W>
  static void eval(const typename Lanes<W>::D* z, const typename Lanes<W>::D* x,
                   const typename Lanes<W>::D& /*h0*/, const typename Lanes<W>::D* /*zbar*/,
                   const typename Lanes<W>::D& /*k*/, typename Lanes<W>::D* dg) {
    using D = typename Lanes<W>::D;
    using nhsim::lanes::kAvfW;
    using nhsim::lanes::kAvfX;
    D xs[13], g[13], ks;
    for (int j = 0; j < 13; ++j) dg[j] = D{} + 0.0;
    for (int node = 0; node < 4; ++node) {
      for (const double sgn : {-1.0, 1.0}) {
        const double s = 0.5 * (1.0 + sgn * kAvfX[node]);
        for (int j = 0; j < 13; ++j) xs[j] = (1.0 - s) * z[j] + s * x[j];
        kappa<W>(xs, ks);
        reduced_gradient<W>(xs, ks, g);
        for (int j = 0; j < 13; ++j) dg[j] += (0.5 * kAvfW[node]) * g[j];
      }
    }
  }
};

/// dg = grad H(zbar) of W lanes, the implicit midpoint rule's gradient (MidpointGradient::eval).
struct MidpointLaneGradient {
  template <int W>
  static void eval(const typename Lanes<W>::D* /*z*/, const typename Lanes<W>::D* /*x*/,
                   const typename Lanes<W>::D& /*h0*/, const typename Lanes<W>::D* zbar,
                   const typename Lanes<W>::D& k, typename Lanes<W>::D* dg) {
    reduced_gradient<W>(zbar, k, dg);
  }
};

/// dg = dbarH(zeta, x) of W lanes with the Itoh-Abe (coordinate increment) discrete gradient,
/// [Celledoni2019] eq. (13) (ItohAbeGradient::eval): component i, with y = (x_1..x_{i-1},
/// zeta_i..), is the difference quotient [H(y + d e_i) - H(y)] / d, d = x_i - zeta_i, where |d| >=
/// kItohAbeQuotientThreshold max(1, |zeta_i|), and else the 8-point Gauss-Legendre mean of dH/dy_i
/// along the increment. Each lane takes its own branch per component; H(y + d e_i) is needed by
/// both.
struct ItohAbeLaneGradient {
  template <int W>
  static void eval(const typename Lanes<W>::D* z, const typename Lanes<W>::D* x,
                   const typename Lanes<W>::D& h0, const typename Lanes<W>::D* /*zbar*/,
                   const typename Lanes<W>::D& /*k*/, typename Lanes<W>::D* dg) {
    using D = typename Lanes<W>::D;
    using M = typename Lanes<W>::M;
    using nhsim::lanes::kAvfW;
    using nhsim::lanes::kAvfX;
    using nhsim::lanes::kItohAbeQuotientThreshold;
    D y[13], g[13], ks;
    for (int j = 0; j < 13; ++j) y[j] = z[j];
    D h_prev = h0;
    for (int i = 0; i < 13; ++i) {
      const D d = x[i] - z[i];
      const D abs_d = d < 0.0 ? -d : d, abs_z = z[i] < 0.0 ? -z[i] : z[i];
      const D one = D{} + 1.0;
      const M quotient = abs_d >= kItohAbeQuotientThreshold * (one < abs_z ? abs_z : one);
      D acc = D{} + 0.0;
      if (bits_of<W>(quotient) != (1U << W) - 1U) {  // some lane integrates
        for (int node = 0; node < 4; ++node) {
          for (const double sgn : {-1.0, 1.0}) {
            y[i] = z[i] + 0.5 * (1.0 + sgn * kAvfX[node]) * d;
            kappa<W>(y, ks);
            reduced_gradient<W>(y, ks, g);
            acc += kAvfW[node] * g[i];
          }
        }
      }
      y[i] = x[i];
      D h_new;
      reduced_hamiltonian<W>(y, h_new);
      dg[i] = quotient ? (h_new - h_prev) / d : 0.5 * acc;
      h_prev = h_new;
    }
  }
};

/// r = F(x) = x - zeta - h Pi(xbar) dbarH(zeta, x) of W lanes, xbar = (zeta + x) / 2
/// (DiscreteGradientMethod::step's residual); h0 = H(zeta).
template <int W, class Gradient>
inline void discrete_gradient_residual(const typename Lanes<W>::D* z, const typename Lanes<W>::D* x,
                                       const typename Lanes<W>::D& h0, double h,
                                       typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  D zbar[13], dg[13], pi[13], k;
  for (int j = 0; j < 13; ++j) zbar[j] = 0.5 * (z[j] + x[j]);
  kappa<W>(zbar, k);
  Gradient::template eval<W>(z, x, h0, zbar, k, dg);
  apply_pi<W>(zbar, k, dg, pi);
  for (int j = 0; j < 13; ++j) r[j] = x[j] - z[j] - h * pi[j];
}

/// One step of the discrete gradient method of Gradient (GonzalezLaneGradient, AvfLaneGradient,
/// MidpointLaneGradient, ItohAbeLaneGradient)
/// of the lanes in `lanes` (bits), each on its stored inverse (not fresh: the
/// caller steps a lane without one with the scalar method). A lane that converges is stepped
/// (zeta, its increments, h0, history) and reported in `ok`, in `refresh` too where the scalar
/// iteration would drop its factorisation (more than 7 iterations, or theta > 0.5 at the last);
/// every other lane of `lanes` is in `handed_back`, its state untouched.
template <int W, class Gradient>
void discrete_gradient_step(const nhsim::lanes::DiscreteGradientLaneBlock& b, unsigned lanes,
                            double h, double tol, int max_iter,
                            nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D z[13], x[13], d1[13], d2[13], d3[13];
  for (int j = 0; j < 13; ++j) {
    load<W>(z[j], b.zeta + j * W);
    load<W>(d1[j], b.increments + j * W);
    load<W>(d2[j], b.increments + (13 + j) * W);
    load<W>(d3[j], b.increments + (26 + j) * W);
  }
  D h0, count;
  load<W>(h0, b.h0);
  load<W>(count, b.history);
  // Predictor (DiscreteGradientMethod::step): cubic extrapolation where 3 increments exist,
  // else the explicit midpoint rule.
  const M extrapolate = count >= 3.0;
  for (int j = 0; j < 13; ++j) x[j] = z[j] + 3.0 * (d1[j] - d2[j]) + d3[j];
  if (bits_of<W>(extrapolate) != (1U << W) - 1U) {
    D f[13], t[13];
    reduced_rhs<W>(z, f);
    for (int j = 0; j < 13; ++j) t[j] = z[j] + (0.5 * h) * f[j];
    reduced_rhs<W>(t, f);
    for (int j = 0; j < 13; ++j) x[j] = extrapolate ? x[j] : z[j] + h * f[j];
  }
  const NewtonLaneMasks<W> m = reused_inverse_newton<W, 13>(
      x, lanes, tol, max_iter,
      [&](const D* xi, D* r) { discrete_gradient_residual<W, Gradient>(z, xi, h0, h, r); },
      [&](const D* r, D* dx) { inverse_times_in_order<W, 13>(b.inverse, r, dx); });
  const M ok = m.ok;
  // The accepted step: increments shifted, zeta = x, H(zeta) anew, one more increment known.
  D h1;
  reduced_hamiltonian<W>(x, h1);
  for (int j = 0; j < 13; ++j) {
    store<W>(b.increments + (26 + j) * W, ok ? d2[j] : d3[j]);
    store<W>(b.increments + (13 + j) * W, ok ? d1[j] : d2[j]);
    store<W>(b.increments + j * W, ok ? x[j] - z[j] : d1[j]);
    store<W>(b.zeta + j * W, ok ? x[j] : z[j]);
  }
  store<W>(b.h0, ok ? h1 : h0);
  store<W>(b.history, (ok & (count < 3.0)) ? count + 1.0 : count);
  report<W>(m, out);
}

}  // namespace

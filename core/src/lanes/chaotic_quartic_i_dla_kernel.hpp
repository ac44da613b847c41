// Internal: the lane kernel of i_dla on the chaotic quartic system (n = 3): one step of W lanes
// through the simplified Newton iteration, each lane on its own inverse Jacobian, refreshed in
// the lanes where the scalar iteration refreshes it (IDlaMethod<ChaoticQuartic<3>>::step with the
// midpoint discrete constraint, M = I and mu(q) = (1, 0, 0, 0, w_1, w_2, w_3),
// core/include/nhsim/integrators/i_dla.hpp; the iteration is lane_newton.hpp's, the inverse
// eigen_order_inverse.hpp). The unknowns are x = (dq, lambda), 8 of them.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
#pragma once

#include <cmath>
#include <cstdint>

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "lane_newton.hpp"

namespace {

/// r = F(x) of W lanes, x = (dq, lambda) (IDlaMethod::eval_residual): with qbar = q + dq / 2,
///   r_j = (dq_j - h p_j) + (h^2 / 2) (grad V(qbar) - mu(qbar)^T lambda)_j   (M^-1 p0 = p0),
///   r_7 = mu(qbar) dq (Eigen's 7-term inner product, dot7).
template <int W>
inline void i_dla_residual(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                           const typename Lanes<W>::D* x, double h, typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  D qbar[7], gv[7], mu[7];
  for (int j = 0; j < 7; ++j) qbar[j] = q[j] + 0.5 * x[j];
  grad_potential<W>(qbar, gv);
  constraint<W>(qbar, mu);
  const double half_h2 = 0.5 * h * h;
  for (int j = 0; j < 7; ++j) r[j] = (x[j] - h * p[j]) + half_h2 * (gv[j] - mu[j] * x[7]);
  dot7<W>(mu, x, r[7]);
}

/// One step of i_dla of the lanes in `lanes` (bits), as SimplifiedNewton::solve's attempts go: a
/// lane in `factorised` first iterates on its stored inverse; a lane without one, and a lane whose
/// stored inverse stopped contracting, then iterates from the predictor again on a fresh inverse
/// (the forward-difference Jacobian at the predictor, factorised and inverted:
/// eigen_order_inverse.hpp), which it stores. A lane that converges is stepped (q, p, its
/// solutions, history) and reported in `ok`, in `refresh` too where the scalar iteration would drop
/// its factorisation; a lane whose fresh attempt fails too (for the damped Newton fallback) is in
/// `handed_back`, its state untouched.
template <int W>
void i_dla_step(const nhsim::lanes::CanonicalNewtonLaneBlock& b, unsigned lanes,
                unsigned factorised, double h, double tol, int max_iter,
                nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D q[7], p[7], x[8];  // x: the predictor, then the solution
  LaneSolutionHistory<W, 8> hist;
  load_canonical<W>(b, q, p, hist);
  // Predictor: quadratic extrapolation where 3 solutions exist, else (h M^-1 p0, last lambda).
  const M extrapolate = hist.count >= 3.0;
  hist.extrapolate(x);
  for (int j = 0; j < 7; ++j) x[j] = extrapolate ? x[j] : h * p[j];
  x[7] = extrapolate ? x[7] : hist.x1[7];
  // The round-off floor's scale: the predictor and q0 (IDlaMethod::step's state_scale).
  D scale = D{} + 1.0;
  max_abs<W, 8>(x, scale);
  max_abs<W, 7>(q, scale);
  const auto residual = [&](const D* xi, D* r) { i_dla_residual<W>(q, p, xi, h, r); };
  // lambda's round-off measured as that of h lambda (IDlaMethod's set_roundoff_units).
  const double units[8] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, std::abs(h)};
  const NewtonLaneMasks<W> m =
      newton_solve<W, 8>(x, lanes, factorised, b.inverse, scale, tol, max_iter, residual, units);
  const M ok = m.ok;
  // The accepted step: p1 = p0 + h (mu(qbar)^T lambda - grad V(qbar)), q1 = q0 + dq; the
  // solutions shifted, one more known.
  D qbar[7], gv[7], mu[7];
  for (int j = 0; j < 7; ++j) qbar[j] = q[j] + 0.5 * x[j];
  grad_potential<W>(qbar, gv);
  constraint<W>(qbar, mu);
  for (int j = 0; j < 7; ++j) {
    store<W>(b.p + j * W, ok ? p[j] + h * (mu[j] * x[7] - gv[j]) : p[j]);
    store<W>(b.q + j * W, ok ? q[j] + x[j] : q[j]);
  }
  hist.store_to(b.solutions, b.history, ok, x);
  report<W>(m, out);
}

}  // namespace

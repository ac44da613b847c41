// Internal: the lane kernel of dla on the chaotic quartic system (n = 3): one step of W lanes
// through the simplified Newton iteration, each lane on its own inverse Jacobian, refreshed in
// the lanes where the scalar iteration refreshes it (DlaMethod<ChaoticQuartic<3>>::step, i.e.
// MomentumMatchingMethod::step with DlaDiscretisation, core/include/nhsim/integrators/
// discrete_momentum_matching.hpp and dla.hpp, with M = I, no loads and mu(q) = (1, 0, 0, 0, w_1,
// w_2, w_3); the iteration is lane_newton.hpp's, the inverse eigen_order_inverse.hpp). The
// unknowns are x = (q_{k+1}, lambda), 8 of them.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
#pragma once

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "lane_newton.hpp"

namespace {

/// The midpoint discrete Legendre transform of W lanes (DlaDiscretisation::eval with M = I):
/// out = (q1 - q0) / h + c grad V((q0 + q1) / 2), c = h / 2 for -D1 L_d and -h / 2 for D2 L_d.
template <int W>
inline void dla_legendre(const typename Lanes<W>::D* q0, const typename Lanes<W>::D* q1, double h,
                         double c, typename Lanes<W>::D* out) {
  using D = typename Lanes<W>::D;
  D qbar[7], gv[7];
  for (int j = 0; j < 7; ++j) qbar[j] = 0.5 * (q0[j] + q1[j]);
  grad_potential<W>(qbar, gv);
  for (int j = 0; j < 7; ++j) out[j] = (q1[j] - q0[j]) / h + c * gv[j];
}

/// r = F(x) of W lanes, x = (q1, lambda) (MomentumMatchingMethod::eval_residual):
///   r_j = (-D1 L_d(q0, q1) - p0)_j - mu(q0)_j lambda,   r_7 = mu(qbar) (q1 - q0) / h.
template <int W>
inline void dla_residual(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                         const typename Lanes<W>::D* mu0, const typename Lanes<W>::D* x, double h,
                         typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  dla_legendre<W>(q, x, h, 0.5 * h, r);
  for (int j = 0; j < 7; ++j) r[j] = (r[j] - p[j]) - mu0[j] * x[7];
  D qbar[7], mu[7], dq[7];
  for (int j = 0; j < 7; ++j) {
    qbar[j] = 0.5 * (q[j] + x[j]);
    dq[j] = x[j] - q[j];
  }
  constraint<W>(qbar, mu);
  dot7<W>(mu, dq, r[7]);
  r[7] = r[7] / h;
}

/// One step of dla of the lanes in `lanes` (bits), as SimplifiedNewton::solve's attempts go (see
/// i_dla_step, chaotic_quartic_i_dla_kernel.hpp): a lane that converges is stepped (q_{k-1} = q_k,
/// q_{k+1}, p_{k+1} = P_{q_{k+1}} D2 L_d(q_k, q_{k+1}), lambda) and reported in `ok`, in `refresh`
/// too where the scalar iteration would drop its factorisation; a lane whose fresh attempt fails
/// too (for the damped Newton fallback) is in `handed_back`, its state untouched.
template <int W>
void dla_step(const nhsim::lanes::MomentumMatchingLaneBlock& b, unsigned lanes, unsigned factorised,
              double h, double tol, int max_iter, nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D q[7], p[7], q_prev[7], mu0[7], x[8];  // x: the predictor, then the solution
  for (int j = 0; j < 7; ++j) {
    load<W>(q[j], b.q + j * W);
    load<W>(p[j], b.p + j * W);
    load<W>(q_prev[j], b.q_previous + j * W);
  }
  D lambda, have_previous;
  load<W>(lambda, b.lambda);
  load<W>(have_previous, b.have_previous);
  constraint<W>(q, mu0);
  // Predictor: q_{k+1} ~ 2 q_k - q_{k-1} once a step was taken, else q_k + h M^-1 p_k; the last
  // lambda.
  const M extrapolate = have_previous != 0.0;
  for (int j = 0; j < 7; ++j) x[j] = extrapolate ? 2.0 * q[j] - q_prev[j] : q[j] + h * p[j];
  x[7] = lambda;
  // The round-off floor's scale: the predictor (no state scale).
  D scale = D{} + 1.0;
  max_abs<W, 8>(x, scale);
  const auto residual = [&](const D* xi, D* r) { dla_residual<W>(q, p, mu0, xi, h, r); };
  const NewtonLaneMasks<W> m =
      newton_solve<W, 8>(x, lanes, factorised, b.inverse, scale, tol, max_iter, residual);
  const M ok = m.ok;
  // The accepted step: f = D2 L_d(q_k, q_{k+1}), projected onto D* at q_{k+1}
  // (DistributionProjector::apply with M = I and one constraint: f - (mu f / mu mu^T) mu^T).
  D f[7], mu1[7], gram, s;
  dla_legendre<W>(q, x, h, -0.5 * h, f);
  constraint<W>(x, mu1);
  dot7<W>(mu1, mu1, gram);
  dot7<W>(mu1, f, s);
  const D nu = s / gram;
  for (int j = 0; j < 7; ++j) {
    store<W>(b.q_previous + j * W, ok ? q[j] : q_prev[j]);
    store<W>(b.q + j * W, ok ? x[j] : q[j]);
    store<W>(b.p + j * W, ok ? f[j] - nu * mu1[j] : p[j]);
  }
  store<W>(b.lambda, ok ? x[7] : lambda);
  store<W>(b.have_previous, ok ? D{} + 1.0 : have_previous);
  report<W>(m, out);
}

}  // namespace

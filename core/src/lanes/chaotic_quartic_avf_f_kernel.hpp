// Internal: the lane kernel of avf_f on the chaotic quartic system (n = 3): one step of W lanes
// through the simplified Newton iteration, each lane on its own inverse Jacobian, refreshed in the
// lanes where the scalar iteration refreshes it (AvfFMethod<ChaoticQuartic<3>>::step,
// [Celledoni2019] eq. (15) with the AVF discrete gradient, M = I and mu(q) = (1, 0, 0, 0, w_1, w_2,
// w_3), core/include/nhsim/integrators/avf_f.hpp; the iteration is lane_newton.hpp's, the inverse
// eigen_order_inverse.hpp). The unknowns are x = (dq, dp, h lambda), 15 of them; the Jacobian is
// that of the midpoint residual, its inverse updated by Broyden's formula in each iteration
// (BroydenLanes); lanes_test checks the bits.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
#pragma once

#include <initializer_list>

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "lane_newton.hpp"

namespace {

/// r = F(x) of W lanes, x = (dq, dp, h lambda) (AvfFMethod::eval_residual): with
/// qbar = q + dq / 2, pbar = p + dp / 2 (= M^-1 pbar) and g_q = int_0^1 grad V(q + s dq) ds by
/// the 8-point Gauss-Legendre rule where kAvf (else grad V(qbar), the midpoint residual whose
/// Jacobian is used),
///   r = (dq - h pbar, dp + h g_q - mu(qbar)^T (h lambda), mu(qbar) pbar).
template <int W, bool kAvf>
inline void avf_f_residual(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                           const typename Lanes<W>::D* x, double h, typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  D qbar[7], pbar[7], gq[7], mu[7];
  for (int j = 0; j < 7; ++j) {
    qbar[j] = q[j] + 0.5 * x[j];
    pbar[j] = p[j] + 0.5 * x[7 + j];
  }
  if constexpr (kAvf) {
    using nhsim::lanes::kAvfW;
    using nhsim::lanes::kAvfX;
    D qs[7], gs[7];
    for (int j = 0; j < 7; ++j) gq[j] = D{} + 0.0;
    for (int node = 0; node < 4; ++node) {
      for (const double sgn : {-1.0, 1.0}) {
        const double s = 0.5 * (1.0 + sgn * kAvfX[node]);
        for (int j = 0; j < 7; ++j) qs[j] = q[j] + s * x[j];
        grad_potential<W>(qs, gs);
        for (int j = 0; j < 7; ++j) gq[j] += (0.5 * kAvfW[node]) * gs[j];
      }
    }
  } else {
    grad_potential<W>(qbar, gq);
  }
  constraint<W>(qbar, mu);
  for (int j = 0; j < 7; ++j) {
    r[j] = x[j] - h * pbar[j];
    r[7 + j] = (x[7 + j] + h * gq[j]) - mu[j] * x[14];
  }
  dot7<W>(mu, pbar, r[14]);
}

/// The canonical vector field of W lanes with the multiplier impulse lam = h lambda
/// (AvfFMethod::field): dq = p, dp = mu(q)^T lam / h - grad V(q).
template <int W>
inline void avf_f_field(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                        const typename Lanes<W>::D& lam, double h, typename Lanes<W>::D* dq,
                        typename Lanes<W>::D* dp) {
  using D = typename Lanes<W>::D;
  D gv[7], mu[7];
  grad_potential<W>(q, gv);
  constraint<W>(q, mu);
  for (int j = 0; j < 7; ++j) {
    dq[j] = p[j];
    dp[j] = (mu[j] * lam) / h - gv[j];
  }
}

/// One step of avf_f of the lanes in `lanes` (bits), as SimplifiedNewton::solve's attempts go
/// (newton_solve(): those in `factorised` on their stored inverse first, on a fresh one where
/// that fails or they have none), with the round-off floor of the state (max(|q|, |p|)). A lane
/// that converges is stepped (q, p, its solutions, history) and reported in `ok`, in `refresh`
/// too where the scalar iteration would drop its factorisation; a lane whose fresh attempt fails
/// too is in `handed_back`, its state untouched.
template <int W>
void avf_f_step(const nhsim::lanes::CanonicalNewtonLaneBlock& b, unsigned lanes,
                unsigned factorised, double h, double tol, int max_iter,
                nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D q[7], p[7], x[15];
  LaneSolutionHistory<W, 15> hist;
  load_canonical<W>(b, q, p, hist);
  // Predictor: quadratic extrapolation where 3 solutions exist, else explicit midpoint on the
  // field with the previous multiplier.
  const M extrapolate = hist.count >= 3.0;
  hist.extrapolate(x);
  M stepping;
  mask_of<W>(lanes, stepping);
  if (bits_of<W>(stepping & ~extrapolate) != 0) {
    const D lam = hist.x1[14];
    D dq[7], dp[7];
    explicit_midpoint_field<W>(
        q, p, h,
        [&](const D* qq, const D* pp, D* fq, D* fp) { avf_f_field<W>(qq, pp, lam, h, fq, fp); }, dq,
        dp);
    for (int j = 0; j < 7; ++j) {
      x[j] = extrapolate ? x[j] : h * dq[j];
      x[7 + j] = extrapolate ? x[7 + j] : h * dp[j];
    }
    x[14] = extrapolate ? x[14] : lam;
  }
  // The round-off floor's scale: the predictor and the state (AvfFMethod::step's state_scale).
  D scale = D{} + 1.0;
  max_abs<W, 15>(x, scale);
  max_abs<W, 7>(q, scale);
  max_abs<W, 7>(p, scale);
  const auto residual = [&](const D* xi, D* r) { avf_f_residual<W, true>(q, p, xi, h, r); };
  const auto midpoint_residual = [&](const D* xi, D* r) {
    avf_f_residual<W, false>(q, p, xi, h, r);
  };
  const NewtonLaneMasks<W> m = newton_solve<W, 15, /*kBroyden=*/true>(
      x, lanes, factorised, b.inverse, scale, tol, max_iter, residual, midpoint_residual);
  const M ok = m.ok;
  for (int j = 0; j < 7; ++j) {
    store<W>(b.q + j * W, ok ? q[j] + x[j] : q[j]);
    store<W>(b.p + j * W, ok ? p[j] + x[7 + j] : p[j]);
  }
  hist.store_to(b.solutions, b.history, ok, x);
  report<W>(m, out);
}

}  // namespace

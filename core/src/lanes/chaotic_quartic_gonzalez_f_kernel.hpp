// Internal: the lane kernel of gonzalez_f on the chaotic quartic system (n = 3): one step of W
// lanes through the simplified Newton iteration, each lane on its own inverse Jacobian, refreshed
// in the lanes where the scalar iteration refreshes it (GonzalezFMethod<ChaoticQuartic<3>>::step,
// [Celledoni2019] eq. (15), with M = I and mu(q) = (1, 0, 0, 0, w_1, w_2, w_3),
// core/include/nhsim/integrators/gonzalez_f.hpp; the iteration is lane_newton.hpp's, the inverse
// eigen_order_inverse.hpp). The unknowns are x = (q', p', h lambda), 15 of them; the Jacobian is
// that of the midpoint residual, its inverse updated by Broyden's formula in each iteration
// (BroydenLanes); lanes_test checks the bits.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
#pragma once

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "lane_newton.hpp"

namespace {

/// r = F(x) of W lanes, x = (q', p', h lambda) (GonzalezFMethod::eval_residual): with
/// qbar = (q + q') / 2, g = (grad V(qbar), pbar) (M^-1 = I), corrected by the Gonzalez
/// coefficient c (dq, dp) of [Celledoni2019] eq. (12) where kGonzalez (else the midpoint residual
/// whose Jacobian is used),
///   r = (q' - q - h g_p, p' - p + h g_q - mu(qbar)^T (h lambda), mu(qbar) g_p);
/// v0 = V(q). Eigen's 7-term reductions (dot, squaredNorm, the 1 x 7 by 7 x 1 product) by dot7.
template <int W, bool kGonzalez>
inline void gonzalez_f_residual(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                                const typename Lanes<W>::D& v0, const typename Lanes<W>::D* x,
                                double h, typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  D qbar[7], gq[7], gp[7], mu[7];
  for (int j = 0; j < 7; ++j) {
    qbar[j] = 0.5 * (q[j] + x[j]);
    gp[j] = 0.5 * (p[j] + x[7 + j]);  // pbar = M^-1 pbar
  }
  grad_potential<W>(qbar, gq);
  if constexpr (kGonzalez) {
    D dq[7], dp[7], sq[7], sp[7];
    for (int j = 0; j < 7; ++j) {
      dq[j] = x[j] - q[j];
      dp[j] = x[7 + j] - p[j];
      sq[j] = q[j] + x[j];
      sp[j] = p[j] + x[7 + j];
    }
    // gonzalez_coefficient(V(q'), V(q), g_q.dq, |dq|^2 + |dp|^2, |zbar|^2, g_q.qbar); the kinetic
    // part of the numerator vanishes for constant M and is left out, as in the scalar method.
    D v1, gd, dqq, dpp, sqq, spp, gz, c;
    potential<W>(x, v1);
    dot7<W>(gq, dq, gd);
    dot7<W>(dq, dq, dqq);
    dot7<W>(dp, dp, dpp);
    dot7<W>(sq, sq, sqq);
    dot7<W>(sp, sp, spp);
    dot7<W>(gq, qbar, gz);
    const D zz = 0.25 * (sqq + spp);
    gonzalez_coefficient<W>(v1, v0, gd, dqq + dpp, zz, gz, c);
    for (int j = 0; j < 7; ++j) {
      gq[j] += c * dq[j];
      gp[j] += c * dp[j];
    }
  }
  constraint<W>(qbar, mu);
  for (int j = 0; j < 7; ++j) {
    r[j] = (x[j] - q[j]) - h * gp[j];
    r[7 + j] = ((x[7 + j] - p[j]) + h * gq[j]) - mu[j] * x[14];
  }
  dot7<W>(mu, gp, r[14]);
}

/// The canonical vector field of W lanes with the multiplier lam_h = lambda / h
/// (GonzalezFMethod::field): dq = p, dp = -grad V(q) + mu(q)^T lam_h.
template <int W>
inline void gonzalez_f_field(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                             const typename Lanes<W>::D& lam_h, typename Lanes<W>::D* dq,
                             typename Lanes<W>::D* dp) {
  using D = typename Lanes<W>::D;
  D gv[7], mu[7];
  grad_potential<W>(q, gv);
  constraint<W>(q, mu);
  for (int j = 0; j < 7; ++j) {
    dq[j] = p[j];
    dp[j] = -gv[j] + mu[j] * lam_h;
  }
}

/// One step of gonzalez_f of the lanes in `lanes` (bits), as SimplifiedNewton::solve's attempts
/// go (newton_solve(): those in `factorised` on their stored inverse first, on a fresh one where
/// that fails or they have none). A lane that converges is stepped (q, p, its solutions, history)
/// and reported in `ok`, in `refresh` too where the scalar iteration would drop its
/// factorisation; a lane whose fresh attempt fails too is in `handed_back`, its state untouched.
template <int W>
void gonzalez_f_step(const nhsim::lanes::CanonicalNewtonLaneBlock& b, unsigned lanes,
                     unsigned factorised, double h, double tol, int max_iter,
                     nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D q[7], p[7], x[15], v0;
  LaneSolutionHistory<W, 15> hist;
  load_canonical<W>(b, q, p, hist);
  potential<W>(q, v0);
  // Predictor: quadratic extrapolation where 3 solutions exist, else explicit midpoint on the
  // field with the previous multiplier.
  const M extrapolate = hist.count >= 3.0;
  hist.extrapolate(x);
  M stepping;
  mask_of<W>(lanes, stepping);
  if (bits_of<W>(stepping & ~extrapolate) != 0) {
    const D lam_h = hist.x1[14] / h;
    D dq[7], dp[7];
    explicit_midpoint_field<W>(
        q, p, h,
        [&](const D* qq, const D* pp, D* fq, D* fp) { gonzalez_f_field<W>(qq, pp, lam_h, fq, fp); },
        dq, dp);
    for (int j = 0; j < 7; ++j) {
      x[j] = extrapolate ? x[j] : q[j] + h * dq[j];
      x[7 + j] = extrapolate ? x[7 + j] : p[j] + h * dp[j];
    }
    x[14] = extrapolate ? x[14] : hist.x1[14];
  }
  D scale = D{} + 1.0;  // no state scale: the unknowns are the state
  max_abs<W, 15>(x, scale);
  const auto residual = [&](const D* xi, D* r) {
    gonzalez_f_residual<W, true>(q, p, v0, xi, h, r);
  };
  const auto midpoint_residual = [&](const D* xi, D* r) {
    gonzalez_f_residual<W, false>(q, p, v0, xi, h, r);
  };
  const NewtonLaneMasks<W> m = newton_solve<W, 15, /*kBroyden=*/true>(
      x, lanes, factorised, b.inverse, scale, tol, max_iter, residual, midpoint_residual);
  const M ok = m.ok;
  for (int j = 0; j < 7; ++j) {
    store<W>(b.q + j * W, ok ? x[j] : q[j]);
    store<W>(b.p + j * W, ok ? x[7 + j] : p[j]);
  }
  hist.store_to(b.solutions, b.history, ok, x);
  report<W>(m, out);
}

}  // namespace

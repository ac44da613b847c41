// Internal: the lane kernel of spark2 on the chaotic quartic system (n = 3): one step of W lanes
// through the simplified Newton iteration, each lane on its own inverse Jacobian, refreshed in
// the lanes where the scalar iteration refreshes it (Spark2Method<ChaoticQuartic<3>>::step with
// M = I and mu(q) = (1, 0, 0, 0, w_1, w_2, w_3), core/include/nhsim/integrators/spark2.hpp; the
// iteration is lane_newton.hpp's, the inverse eigen_order_inverse.hpp's). The unknowns are
// x = (Lambda_1, Lambda_2), 2 of them.
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

/// The stages of x = (Lambda_1, Lambda_2) of W lanes and the residual r = F(x)
/// (Spark2Method::eval_residual with M = I), from q0, base = p0 - (h/2) grad V(q0) and
/// mu0 = mu(q0):
///   P  = base + (h/2) mu0^T Lambda_1,   q1 = q0 + h P,
///   p1 = P - (h/2) grad V(q1) + (h/2) mu(q1)^T Lambda_2,
///   r  = (mu(q1) p1, -((mu(q1) p1 - mu0 P) - mu(q1) P)),
/// each (h/2) mu^T Lambda formed as ((h/2) mu^T) Lambda, as Eigen does, and each mu v as Eigen's
/// 7-term inner product (dot7).
template <int W>
inline void spark2_stages(const typename Lanes<W>::D* q, const typename Lanes<W>::D* base,
                          const typename Lanes<W>::D* mu0, const typename Lanes<W>::D* x, double h,
                          typename Lanes<W>::D* q1, typename Lanes<W>::D* p1,
                          typename Lanes<W>::D* r) {
  using D = typename Lanes<W>::D;
  const double half_h = 0.5 * h;
  D pm[7], gv1[7], mu1[7], c, d;
  for (int j = 0; j < 7; ++j) pm[j] = base[j] + (half_h * mu0[j]) * x[0];
  for (int j = 0; j < 7; ++j) q1[j] = q[j] + h * pm[j];
  grad_potential<W>(q1, gv1);
  constraint<W>(q1, mu1);
  for (int j = 0; j < 7; ++j) p1[j] = pm[j] - half_h * gv1[j];
  for (int j = 0; j < 7; ++j) p1[j] = p1[j] + (half_h * mu1[j]) * x[1];
  dot7<W>(mu1, p1, c);
  r[0] = c;
  dot7<W>(mu0, pm, d);
  c = c - d;
  dot7<W>(mu1, pm, d);
  c = c - d;
  r[1] = -c;
}

/// One step of spark2 of the lanes in `lanes` (bits), as SimplifiedNewton::solve's attempts go
/// (newton_solve(): those in `factorised` on their stored inverse first, on a fresh one where
/// needed). A lane that converges is stepped (q, p, its solutions, history) and reported in `ok`,
/// in `refresh` too where the scalar iteration would drop its factorisation; a lane whose fresh
/// attempt fails too (for the damped Newton fallback) is in `handed_back`, its state untouched.
template <int W>
void spark2_step(const nhsim::lanes::CanonicalNewtonLaneBlock& b, unsigned lanes,
                 unsigned factorised, double h, double tol, int max_iter,
                 nhsim::lanes::NewtonStepOutcome& out) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D q[7], p[7], x[2];  // x: the predictor, then the solution
  LaneSolutionHistory<W, 2> hist;
  load_canonical<W>(b, q, p, hist);
  // grad V and mu at q0 (the scalar method keeps them from its last step, the same bits).
  D gv0[7], mu0[7], base[7];
  grad_potential<W>(q, gv0);
  constraint<W>(q, mu0);
  for (int j = 0; j < 7; ++j) base[j] = p[j] - (0.5 * h) * gv0[j];
  // Predictor: quadratic extrapolation where 3 solutions exist, else the last solution.
  const M extrapolate = hist.count >= 3.0;
  hist.extrapolate(x);
  for (int j = 0; j < 2; ++j) x[j] = extrapolate ? x[j] : hist.x1[j];
  D scale = D{} + 1.0;  // of the round-off floor: the predictor's
  max_abs<W, 2>(x, scale);
  D q1[7], p1[7];
  const auto residual = [&](const D* xi, D* r) {
    spark2_stages<W>(q, base, mu0, xi, h, q1, p1, r);
  };
  // The multipliers' round-off measured as that of h Lambda (Spark2Method's
  // set_roundoff_units).
  const double units[2] = {std::abs(h), std::abs(h)};
  const NewtonLaneMasks<W> m =
      newton_solve<W, 2>(x, lanes, factorised, b.inverse, scale, tol, max_iter, residual, units);
  const M ok = m.ok;
  // The accepted step: (q1, p1) of the solution; the solutions shifted, one more known.
  D r[2];
  spark2_stages<W>(q, base, mu0, x, h, q1, p1, r);
  for (int j = 0; j < 7; ++j) {
    store<W>(b.q + j * W, ok ? q1[j] : q[j]);
    store<W>(b.p + j * W, ok ? p1[j] : p[j]);
  }
  hist.store_to(b.solutions, b.history, ok, x);
  report<W>(m, out);
}

}  // namespace

// `avf_f`: the discrete gradient method on the full canonical equations (6c-d) with
// multipliers, [Celledoni2019] eq. (15), with the average vector field (AVF) discrete gradient of
// seed 001 eq. (11) instead of the Gonzalez one of `gonzalez_f`:
//   (z' - z) / h = J dbarH(z, z') + lambda_alpha (0, mu^alpha(qbar)),
//   dbarH(z, z')^T (0, mu^alpha(qbar)) = 0,                         alpha = 1..m,
// z = (q, p), z' = (q', p'), qbar = (q + q') / 2, J = [[0, I], [-I, 0]], and
//   dbarH(z, z') = int_0^1 grad H(z + s (z' - z)) ds
// of the canonical H(q, p) = 1/2 p^T M^-1 p + V(q). For a constant mass matrix its p-part is
// exactly M^-1 pbar (pbar = (p + p') / 2, the integrand is linear in s), so with
// g_q = int_0^1 grad V(q + s (q' - q)) ds:
//   q' = q + h M^-1 pbar,   p' = p - h g_q + h mu(qbar)^T lambda,   mu(qbar) M^-1 pbar = 0,
// i.e. the multipliers act at the midpoint and the constraint is mu(qbar) vbar = 0 with
// vbar = M^-1 pbar. Energy preserving: H(z') - H(z) = dbarH.(z' - z) = g_q.(q' - q) +
// vbar.(p' - p) = h lambda mu(qbar) vbar = 0 (up to the Newton tolerance, the quadrature and
// round-off). The constraint (6d) mu(q) M^-1 p = 0 is kept only approximately at the step points
// (O(h^2), as for `gonzalez_f`, [Celledoni2019] §3.3). Second order, symmetric.
//
// Quadrature: g_q by the 8-point Gauss-Legendre rule of `avf` (avf.hpp), exact when grad V is a
// polynomial of degree <= 15 along the segment, i.e. for polynomial V of degree <= 16: every
// constant-mass system of the catalogue except the gearbox (quartic chaotic V, linear V of the
// knife edge and of the gravity-loaded holonomic systems, V = 0). The gearbox's pendulum
// potential a cos(q3) - b sin(2 q3) is trigonometric; the rule's error bound
// (8!)^4 / (17 (16!)^3) max |f^(16)| ~ 1.7e-23 max |f^(16)|, f(s) = grad V(q + s dq), is then
// ~ 1.7e-23 (2 |dq3|)^16 max(a, b): below round-off for an angle increment |dq3| <= 1 per step.
//
// Requires a constant mass matrix (kConstantMass): then dH/dq = grad V and dH/dp = M^-1 p.
//
// Unknowns x = (dq, dp, h lambda) with dq = q' - q, dp = p' - p: the increments, not q', p',
// so that the step is not computed as a difference of large, nearly equal numbers (a wound-up
// angle: see `i_dla`, which drifted in energy for that reason) and the Newton tolerance and its
// round-off floor apply to the step itself. The multiplier enters as the impulse h lambda, whose
// round-off does not grow like 1/h (as in `gonzalez_f`). Newton's round-off floor is taken from
// the state (state_scale = max(|q|, |p|), newton.hpp). Solved by SimplifiedNewton with the
// Jacobian of the midpoint residual (g_q replaced by grad V(qbar)) by forward differences,
// reused across steps and corrected by Broyden's update in each iteration
// (JacobianUpdate::kBroyden, as `gonzalez_f`). Predictor: quadratic extrapolation
// 3 x_n - 3 x_{n-1} + x_{n-2} of the previous solutions once three exist, explicit midpoint (with
// the previous multipliers) before that. Steps allocate nothing for fixed-size systems.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/canonical_util.hpp"
#include "nhsim/integrators/descriptors/avf_f.hpp"
#include "nhsim/integrators/newton_method.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Per-trajectory state of eq. (15) with the AVF discrete gradient on system S (canonical form,
/// constant mass matrix). State: q, p of length nq; the last solution (dq, dp, h lambda), length
/// 2 nq + nc, and the two before it are kept for the predictor.
template <class S>
class AvfFMethod : public NewtonMethodBase<AvfFMethod<S>> {
 public:
  friend NewtonMethodBase<AvfFMethod>;

  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int NX = kStackedSize<NQ, NC, 2>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;

  /// h: step [s] (any sign: -h runs the inverse map); ns: Newton tolerance and iteration cap.
  AvfFMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        nq_(sys.nq()),
        nc_(sys.nc()),
        newton_(2 * sys.nq() + sys.nc(), JacobianUpdate::kBroyden),
        q_(nq_),
        p_(nq_),
        qbar_(nq_),
        pbar_(nq_),
        qs_(nq_),
        gs_(nq_),
        gq_(nq_),
        gp_(nq_),
        f_(nq_),
        mu_(nc_, nq_),
        c_(nc_),
        x_(2 * nq_ + nc_),
        r0_(2 * nq_ + nc_),
        r1_(2 * nq_ + nc_),
        xt_(2 * nq_ + nc_),
        solutions_(2 * nq_ + nc_) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    solutions_.reset();
    newton_.invalidate();
  }

  /// What a step starts from besides (q, p): the predictor's last solutions of (dq, dp, h lambda)
  /// (SolutionHistory), which lane steppers read after a step and restore before one.
  using History = SolutionHistory<VecX>;
  const History& history() const { return solutions_; }
  void restore(const VecQ& q, const VecQ& p, const History& h) {
    q_ = q;
    p_ = p;
    solutions_ = h;
  }

  StepStatus step(double& residual_out) {
    if (solutions_.full()) {
      solutions_.extrapolate(x_);
    } else {
      // Explicit midpoint on qdot = M^-1 p, pdot = -grad V + mu^T lambda_prev.
      const auto lam = segment_n<NC>(solutions_.x1, 2 * nq_, nc_);
      field(q_, p_, lam, gq_, gp_);
      qbar_ = q_ + (0.5 * h_) * gq_;
      pbar_ = p_ + (0.5 * h_) * gp_;
      field(qbar_, pbar_, lam, gq_, gp_);
      segment_n<NQ>(x_, 0, nq_) = h_ * gq_;
      segment_n<NQ>(x_, nq_, nq_) = h_ * gp_;
      segment_n<NC>(x_, 2 * nq_, nc_) = lam;
    }
    // Round-off floor from the state: a wound-up angle in q reaches the residual through
    // grad V and mu (newton.hpp).
    const StepStatus st = this->solve(
        x_, [this](const VecX& x, VecX& r) { eval_residual(x, true, r); },
        [this](const VecX& x, VecX& r) { eval_residual(x, false, r); }, residual_out,
        std::max(q_.template lpNorm<Eigen::Infinity>(), p_.template lpNorm<Eigen::Infinity>()));
    if (st != StepStatus::kOk) return st;
    solutions_.push(x_);
    q_ += segment_n<NQ>(x_, 0, nq_);
    p_ += segment_n<NQ>(x_, nq_, nq_);
    return StepStatus::kOk;
  }

 private:
  /// Canonical vector field with the multipliers of impulse lam = h lambda:
  /// dq = M^-1 p, dp = -grad V + mu^T lam / h.
  template <class L>
  void field(const VecQ& q, const VecQ& p, const L& lam, VecQ& dq, VecQ& dp) {
    sys_.inv_mass_times(q, p, dq);
    sys_.grad_potential(q, dp);
    sys_.constraint(q, mu_);
    f_.noalias() = mu_.transpose() * lam;
    dp = f_ / h_ - dp;
  }

  /// r = F(x) of eq. (15), x = (dq, dp, h lambda):
  /// (dq - h M^-1 pbar, dp + h g_q - mu(qbar)^T (h lambda), mu(qbar) M^-1 pbar)
  /// with g_q = int_0^1 grad V(q + s dq) ds by Gauss-Legendre (avf = true) or grad V(qbar)
  /// (avf = false: the smooth midpoint residual whose Jacobian is used).
  void eval_residual(const VecX& x, bool avf, VecX& r) {
    const auto dq = segment_n<NQ>(x, 0, nq_);
    const auto dp = segment_n<NQ>(x, nq_, nq_);
    const auto lam = segment_n<NC>(x, 2 * nq_, nc_);
    qbar_ = q_ + 0.5 * dq;
    pbar_ = p_ + 0.5 * dp;
    if (avf) {
      gq_.setZero();
      for (int k = 0; k < AvfGradient::kNodes / 2; ++k) {
        for (const double sgn : {-1.0, 1.0}) {
          const double s = 0.5 * (1.0 + sgn * AvfGradient::kX[k]);
          qs_ = q_ + s * dq;
          sys_.grad_potential(qs_, gs_);
          gq_ += (0.5 * AvfGradient::kW[k]) * gs_;
        }
      }
    } else {
      sys_.grad_potential(qbar_, gq_);
    }
    sys_.inv_mass_times(qbar_, pbar_, gp_);
    sys_.constraint(qbar_, mu_);
    f_.noalias() = mu_.transpose() * lam;
    segment_n<NQ>(r, 0, nq_) = dq - h_ * gp_;
    segment_n<NQ>(r, nq_, nq_) = dp + h_ * gq_ - f_;
    c_.noalias() = mu_ * gp_;
    segment_n<NC>(r, 2 * nq_, nc_) = c_;
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  int nq_, nc_;
  SimplifiedNewton<NX> newton_;
  VecQ q_, p_, qbar_, pbar_, qs_, gs_, gq_, gp_, f_;
  MatCQ mu_;
  VecC c_;
  VecX x_, r0_, r1_, xt_;
  SolutionHistory<VecX> solutions_;  // of (dq, dp, h lambda)
};

}  // namespace nhsim

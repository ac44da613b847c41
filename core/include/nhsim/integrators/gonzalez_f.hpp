// `gonzalez_f`: the discrete gradient method on the full canonical equations (6c-d) with
// multipliers, [Celledoni2019] eq. (15):
//   (z' - z) / h = J dbarH(z, z') + lambda_alpha (0, mu^alpha(qbar)),
//   dbarH(z, z')^T (0, mu^alpha(qbar)) = 0,                         alpha = 1..m,
// z = (q, p), z' = (q', p'), qbar = (q + q') / 2, J = [[0, I], [-I, 0]], with the Gonzalez
// (midpoint) discrete gradient eq. (12) of the canonical H(q, p) = 1/2 p^T M^-1 p + V(q):
//   dbarH(z, z') = grad H(zbar) + [H(z') - H(z) - grad H(zbar).(z' - z)] / |z' - z|^2 (z' - z),
//   grad H(zbar) = (grad V(qbar), M^-1 pbar).
// Written out, with g = dbarH(z, z') = (g_q, g_p):
//   q' = q + h g_p,   p' = p - h g_q + h mu(qbar)^T lambda,   mu(qbar) g_p = 0.
// Energy preserving: H(z') - H(z) = dbarH.(z' - z) = h dbarH^T J dbarH + h lambda mu g_p = 0
// (up to the Newton tolerance and round-off). The constraint (6d) mu(q) M^-1 p = 0 is kept only
// approximately at the step points ([Celledoni2019] §3.3: "only be approximately satisfied"), which
// is the point of comparison with `gonzalez_r`. Second order, symmetric.
//
// Requires a constant mass matrix (kConstantMass): then dH/dq = grad V and dH/dp = M^-1 p.
//
// Unknowns x = (q', p', h lambda), length 2 nq + nc, solved by SimplifiedNewton with the
// Jacobian of the midpoint residual (dbarH replaced by grad H(zbar)) by forward differences,
// reused across steps and corrected by Broyden's update in each iteration
// (JacobianUpdate::kBroyden): in this form the Jacobian goes stale within a step, and without the
// update every other step refactorised. The multiplier enters as the impulse h lambda: the
// constraint row mu(qbar) g_p = 0 fixes it only to the round-off of the Gonzalez quotient (~ eps V
// / |z' - z|), and lambda itself would carry that noise amplified by 1/h, stalling the increment
// test. Predictor: quadratic extrapolation 3 x_n - 3 x_{n-1} + x_{n-2} of the previous solutions
// once three exist, explicit midpoint (with the previous lambda) before that.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nhsim/integrators/canonical_util.hpp"
#include "nhsim/integrators/descriptors/gonzalez_f.hpp"
#include "nhsim/integrators/gonzalez_quotient.hpp"
#include "nhsim/integrators/newton_method.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Per-trajectory state of eq. (15) on system S (canonical form, constant mass matrix).
/// State: q, p of length nq; the multipliers lambda (length nc) of the last step are kept as
/// the predictor of the next.
template <class S>
class GonzalezFMethod : public NewtonMethodBase<GonzalezFMethod<S>> {
 public:
  friend NewtonMethodBase<GonzalezFMethod>;

  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int NX = kStackedSize<NQ, NC, 2>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;

  /// h: step [s] (any sign); ns: Newton tolerance and iteration cap.
  GonzalezFMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        nq_(sys.nq()),
        nc_(sys.nc()),
        newton_(2 * sys.nq() + sys.nc(), JacobianUpdate::kBroyden),
        q_(nq_),
        p_(nq_),
        q1_(nq_),
        p1_(nq_),
        qbar_(nq_),
        pbar_(nq_),
        gq_(nq_),
        gp_(nq_),
        v_(nq_),
        mut_lam_(nq_),
        mu_(nc_, nq_),
        c_(nc_),
        lam_h_(nc_),
        x_(2 * nq_ + nc_),
        r0_(2 * nq_ + nc_),
        r1_(2 * nq_ + nc_),
        xt_(2 * nq_ + nc_),
        solutions_(2 * nq_ + nc_) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    v0_ = sys_.potential(q_);
    solutions_.reset();
    newton_.invalidate();
  }

  /// What a step starts from besides (q, p): the predictor's last solutions of (q', p', h lambda)
  /// (SolutionHistory), which lane steppers read after a step and restore before one.
  using History = SolutionHistory<VecX>;
  const History& history() const { return solutions_; }
  void restore(const VecQ& q, const VecQ& p, const History& h) {
    q_ = q;
    p_ = p;
    v0_ = sys_.potential(q_);
    solutions_ = h;
  }

  StepStatus step(double& residual_out) {
    if (solutions_.full()) {
      solutions_.extrapolate(x_);
    } else {
      // Explicit midpoint on qdot = M^-1 p, pdot = -grad V + mu^T lambda_prev.
      // lambda / h as a vector of the system's capacity: a product with an expression over a
      // segment of the dynamic-size solutions_.x1 would be evaluated into a heap temporary.
      lam_h_ = segment_n<NC>(solutions_.x1, 2 * nq_, nc_) / h_;
      field(q_, p_, gq_, gp_);
      qbar_ = q_ + (0.5 * h_) * gq_;
      pbar_ = p_ + (0.5 * h_) * gp_;
      field(qbar_, pbar_, gq_, gp_);
      segment_n<NQ>(x_, 0, nq_) = q_ + h_ * gq_;
      segment_n<NQ>(x_, nq_, nq_) = p_ + h_ * gp_;
      segment_n<NC>(x_, 2 * nq_, nc_) = segment_n<NC>(solutions_.x1, 2 * nq_, nc_);
    }
    const StepStatus st = this->solve(
        x_, [this](const VecX& x, VecX& r) { eval_residual(x, true, r); },
        [this](const VecX& x, VecX& r) { eval_residual(x, false, r); }, residual_out);
    if (st != StepStatus::kOk) return st;
    solutions_.push(x_);
    q_ = segment_n<NQ>(x_, 0, nq_);
    p_ = segment_n<NQ>(x_, nq_, nq_);
    v0_ = sys_.potential(q_);
    return StepStatus::kOk;
  }

 private:
  /// Canonical vector field with the multipliers of impulse lam = h lambda:
  /// dq = M^-1 p, dp = -grad V + mu^T lam / h.
  /// The canonical vector field with the multiplier lam_h_ = lambda / h.
  void field(const VecQ& q, const VecQ& p, VecQ& dq, VecQ& dp) {
    sys_.inv_mass_times(q, p, dq);
    sys_.grad_potential(q, dp);
    sys_.constraint(q, mu_);
    mut_lam_.noalias() = mu_.transpose() * lam_h_;  // a heap temporary in the expression below
    dp = -dp + mut_lam_;
  }

  /// r = F(x) of eq. (15), x = (q', p', h lambda):
  /// (q' - q - h g_p, p' - p + h g_q - mu(qbar)^T (h lambda), mu(qbar) g_p)
  /// with g the Gonzalez discrete gradient (gonzalez = true) or grad H(zbar) (false: the smooth
  /// residual whose Jacobian is used).
  void eval_residual(const VecX& x, bool gonzalez, VecX& r) {
    q1_ = segment_n<NQ>(x, 0, nq_);
    p1_ = segment_n<NQ>(x, nq_, nq_);
    const auto lam = segment_n<NC>(x, 2 * nq_, nc_);
    qbar_ = 0.5 * (q_ + q1_);
    pbar_ = 0.5 * (p_ + p1_);
    sys_.grad_potential(qbar_, gq_);
    sys_.inv_mass_times(qbar_, pbar_, gp_);
    if (gonzalez) {
      // dq = q' - q (in v_), dp = p' - p (in pbar_, no longer needed).
      v_ = q1_ - q_;
      pbar_ = p1_ - p_;
      // For constant M the kinetic part of H(z') - H(z) - grad H(zbar).(z' - z) vanishes
      // identically (1/2 p'^T M^-1 p' - 1/2 p^T M^-1 p = pbar^T M^-1 (p' - p)); leaving it out
      // removes its round-off from the quotient. Skipped for a tiny step at round-off
      // (gonzalez_coefficient).
      const double zz = 0.25 * ((q_ + q1_).squaredNorm() + (p_ + p1_).squaredNorm());
      const double c =
          gonzalez_coefficient(sys_.potential(q1_), v0_, gq_.dot(v_),
                               v_.squaredNorm() + pbar_.squaredNorm(), zz, gq_.dot(qbar_));
      gq_ += c * v_;
      gp_ += c * pbar_;
    }
    sys_.constraint(qbar_, mu_);
    segment_n<NQ>(r, 0, nq_) = q1_ - q_ - h_ * gp_;
    mut_lam_.noalias() = mu_.transpose() * lam;
    segment_n<NQ>(r, nq_, nq_) = p1_ - p_ + h_ * gq_ - mut_lam_;
    c_.noalias() = mu_ * gp_;
    segment_n<NC>(r, 2 * nq_, nc_) = c_;
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  int nq_, nc_;
  SimplifiedNewton<NX> newton_;
  VecQ q_, p_, q1_, p1_, qbar_, pbar_, gq_, gp_, v_, mut_lam_;
  MatCQ mu_;
  VecC c_, lam_h_;
  VecX x_, r0_, r1_, xt_;
  SolutionHistory<VecX> solutions_;  // of (q', p', h lambda)
  double v0_ = 0.0;                  // V(q) of the current state
};

}  // namespace nhsim

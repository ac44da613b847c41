// `i_dla`: the implicit reversible discrete Lagrange-d'Alembert integrator (I-DLA of
// [Celledoni2019] §4.1.3 and Fig. 2; [McLachlan2006]; the discrete Lagrange-d'Alembert
// principle of [Cortes2001]) with the midpoint discrete
// Lagrangian and the midpoint discrete constraint
//   L_d(q0, q1) = h L(qbar, v),   qbar = (q0 + q1) / 2,   v = (q1 - q0) / h,
//   L(q, qdot) = 1/2 qdot^T M qdot - V(q),          mu(qbar) v = 0.
// For a constant mass matrix M:
//   D1 L_d(q0, q1) = -M v - (h/2) grad V(qbar),    D2 L_d(q0, q1) = M v - (h/2) grad V(qbar).
// Position-momentum form chosen here (derived for nhsim, documented because the sources state
// the principle, not this map): the constraint force h lambda_alpha mu^alpha(qbar) of the step
// is split evenly between its two ends, as in the forced discrete Euler-Lagrange equations:
//   p0 = -D1 L_d(q0, q1) - (h/2) mu(qbar)^T lambda,
//   p1 =  D2 L_d(q0, q1) + (h/2) mu(qbar)^T lambda,
//   mu(qbar) (q1 - q0) / h = 0.
// Eliminating M v:
//   p1 = p0 - h grad V(qbar) + h mu(qbar)^T lambda,
//   q1 = q0 + (h/2) M^-1 (p0 + p1),
//   mu(qbar) (q1 - q0) = 0,
// i.e. the implicit midpoint rule with the constraint force at the midpoint and the midpoint
// discrete constraint. Properties (checked by tests/core/canonical_integrators_test.cpp):
//   * symmetric: exchanging (q0, p0) <-> (q1, p1) and h -> -h leaves the equations invariant
//     (same lambda), so the map with -h inverts the map with h;
//   * reversible w.r.t. (q, p) -> (q, -p): the step from (q1, -p1) lands on (q0, -p0);
//   * second order; the discrete constraint holds exactly (up to the Newton tolerance); the
//     canonical constraint mu(q1) M^-1 p1 = 0 only up to O(h^2); energy is not preserved for a
//     non-quadratic V (bounded, oscillating error; random walk over ensembles, [Celledoni2019] Fig.
//     2).
// Requires a constant mass matrix (kConstantMass).
//
// Unknowns x = (dq, lambda), dq = q1 - q0 the increment, length nq + nc, solved by
// SimplifiedNewton on
//   F(x) = (dq - h M^-1 p0 + (h^2/2) M^-1 (grad V(qbar) - mu(qbar)^T lambda),
//           mu(qbar) dq),   qbar = q0 + dq / 2,
// with a forward-difference Jacobian reused across steps. The unknown is the increment, not q1:
// Newton's componentwise tolerance (relative to max(1, |x_i|), newton.hpp) then applies to the
// step, and the residual has no cancellation in q1 - q0, which on wound-up angles (the rolling
// disk at ~300 rad) would leave the energy of a quadratic H drifting at the round-off of q1
// (tests/core/canonical_integrators_test.cpp holds it below 5e-15). The round-off floor still
// scales with state_scale = max |q0|: a wound-up angle reaches the residual through mu(qbar) and
// grad V(qbar), which dq and lambda do not show (tests/core/gearbox_test.cpp).
// Newton's round-off test measures lambda as the impulse h lambda
// (SimplifiedNewton::set_roundoff_units): lambda enters the position rows as (h^2/2) mu^T lambda,
// so the rows' round-off reaches it amplified by ~1/h, above the round-off floor at small h.
// Predictor: quadratic extrapolation of the last three solutions (dq, lambda), h M^-1 p0 (and
// the previous lambda) before that.
//
// The constraint: [Celledoni2019] Fig. 2 shows I-DLA's constraint (20) at machine precision;
// this method holds it on its discrete velocity (q1 - q0) / h at the midpoint, the velocity of a
// Lagrangian (position-only) DLA, while mu(q) M^-1 p at the nodes is O(h^2). The node-momentum
// form of [McLachlan2006] eq. (4.18) (force at qbar, constraint mu(q1) M^-1 p1 = 0) is
// IDlaConstraint::kNodeMomentum, kept for comparison (tests/core/i_dla_constraint_test.cpp): it
// holds mu(q) M^-1 p to round-off, but its energy variance on the chaotic system at t = 1000 is
// 5-7x SI-DLA's and SPARK's, where [Celledoni2019] Fig. 2 shows I-DLA similar to them; the
// midpoint form is 1.0-1.3x (docs/experiments-seed001.md). `i_dla` is the midpoint form.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nhsim/integrators/canonical_util.hpp"
#include "nhsim/integrators/descriptors/i_dla.hpp"
#include "nhsim/integrators/newton_method.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Per-trajectory state of the I-DLA on system S (canonical form, constant mass matrix).
/// State: q, p of length nq.
template <class S, IDlaConstraint kConstraint = IDlaConstraint::kMidpointDiscrete>
class IDlaMethod : public NewtonMethodBase<IDlaMethod<S, kConstraint>> {
 public:
  friend NewtonMethodBase<IDlaMethod>;

  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int NX = kStackedSize<NQ, NC, 1>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;

  /// h: step [s] (any sign: -h runs the inverse map); ns: Newton tolerance and iteration cap.
  IDlaMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        nq_(sys.nq()),
        nc_(sys.nc()),
        newton_(sys.nq() + sys.nc()),
        q_(nq_),
        p_(nq_),
        qbar_(nq_),
        q1_(nq_),
        gv_(nq_),
        f_(nq_),
        v0_(nq_),
        v1_(nq_),
        mu_(nc_, nq_),
        mu1_(nc_, nq_),
        c_(nc_),
        x_(nq_ + nc_),
        r0_(nq_ + nc_),
        r1_(nq_ + nc_),
        xt_(nq_ + nc_),
        solutions_(nq_ + nc_) {
    // lambda moves the state only as the impulse h mu^T lambda: its round-off is measured as
    // that of h lambda (newton.hpp, set_roundoff_units).
    VecX units(nq_ + nc_);
    segment_n<NQ>(units, 0, nq_).setOnes();
    segment_n<NC>(units, nq_, nc_).setConstant(std::abs(h));
    newton_.set_roundoff_units(units);
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    solutions_.reset();
    newton_.invalidate();
  }

  /// What a step starts from besides (q, p): the predictor's last solutions of (dq, lambda)
  /// (SolutionHistory), which lane steppers read after a step and restore before one.
  using History = SolutionHistory<VecX>;
  const History& history() const { return solutions_; }
  void restore(const VecQ& q, const VecQ& p, const History& h) {
    q_ = q;
    p_ = p;
    solutions_ = h;
  }

  /// The discrete constraint of the last step, max_alpha |mu^alpha(qbar) (q1 - q0) / h|, with
  /// qbar = (q0 + q1) / 2 [velocity units]; 0 before the first step.
  double discrete_constraint_residual() const { return last_discrete_residual_; }

  StepStatus step(double& residual_out) {
    sys_.inv_mass_times(q_, p_, v0_);  // M^-1 p0: constant within the step
    if (solutions_.full()) {
      solutions_.extrapolate(x_);
    } else {
      segment_n<NQ>(x_, 0, nq_) = h_ * v0_;
      segment_n<NC>(x_, nq_, nc_) = segment_n<NC>(solutions_.x1, nq_, nc_);
    }
    // Round-off floor from the state: a wound-up angle in q0 reaches the residual through
    // mu(qbar) and grad V(qbar) (newton.hpp).
    const auto residual = [this](const VecX& x, VecX& r) { eval_residual(x, r); };
    const StepStatus st =
        this->solve(x_, residual, residual, residual_out, q_.template lpNorm<Eigen::Infinity>());
    if (st != StepStatus::kOk) return st;
    solutions_.push(x_);
    // p1 = p0 - h grad V(qbar) + h mu(qbar)^T lambda at the solution.
    const auto dq = segment_n<NQ>(x_, 0, nq_);
    const auto lam = segment_n<NC>(x_, nq_, nc_);
    qbar_ = q_ + 0.5 * dq;
    sys_.grad_potential(qbar_, gv_);
    sys_.constraint(qbar_, mu_);
    c_.noalias() = mu_ * dq;
    last_discrete_residual_ = c_.template lpNorm<Eigen::Infinity>() / std::abs(h_);
    f_.noalias() = mu_.transpose() * lam;
    p_ += h_ * (f_ - gv_);
    q_ += dq;
    return StepStatus::kOk;
  }

 private:
  void eval_residual(const VecX& x, VecX& r) {
    const auto dq = segment_n<NQ>(x, 0, nq_);
    const auto lam = segment_n<NC>(x, nq_, nc_);
    qbar_ = q_ + 0.5 * dq;
    sys_.grad_potential(qbar_, gv_);
    sys_.constraint(qbar_, mu_);
    f_.noalias() = mu_.transpose() * lam;
    gv_ -= f_;  // grad V(qbar) - mu(qbar)^T lambda
    sys_.inv_mass_times(qbar_, gv_, f_);
    segment_n<NQ>(r, 0, nq_) = dq - h_ * v0_ + (0.5 * h_ * h_) * f_;
    if constexpr (kConstraint == IDlaConstraint::kMidpointDiscrete) {
      c_.noalias() = mu_ * dq;
      segment_n<NC>(r, nq_, nc_) = c_;
    } else {  // h mu(q1) M^-1 p1, M^-1 p1 = M^-1 p0 - h f: length units, as the first block
      q1_ = q_ + dq;
      sys_.constraint(q1_, mu1_);
      v1_ = v0_ - h_ * f_;
      c_.noalias() = mu1_ * v1_;
      segment_n<NC>(r, nq_, nc_) = h_ * c_;
    }
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  int nq_, nc_;
  SimplifiedNewton<NX> newton_;
  VecQ q_, p_, qbar_, q1_, gv_, f_, v0_, v1_;
  MatCQ mu_, mu1_;  // mu(qbar); mu(q1) for kNodeMomentum
  VecC c_;
  VecX x_, r0_, r1_, xt_;
  SolutionHistory<VecX> solutions_;  // of (dq, lambda)
  double last_discrete_residual_ = 0.0;
};

}  // namespace nhsim

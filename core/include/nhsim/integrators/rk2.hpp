// `rk2`: the explicit midpoint rule, the "standard Runge-Kutta second-order method" baseline of
// [Kobilarov2010] §6 (Fig. 2, Fig. 4). The paper does not say which form of the equations it was
// applied to; here (documented choice) it is the CANONICAL index-1 form, constant mass matrix:
//   q' = v := M^-1 p,   p' = f(q, t) + mu(q)^T lambda,
//   lambda = -(mu M^-1 mu^T)^-1 (mudot(q, v) v + mu M^-1 f(q, t)),
// lambda from the time derivative of the constraint mu(q) M^-1 p = 0 ([Kobilarov2010] §3), with
// mudot(q, v) = sum_i dmu/dq^i v^i from the system's constraint_dot where it has one, else by
// the complex step Im mu(q + i e v) / e, e = 1e-20 (exact to round-off, one complex evaluation
// of mu), and f(q, t) = B(q) u(t) - grad V(q). One step: z_1/2 = z + h/2 F(z, t), z' = z + h
// F(z_1/2, t + h/2). Neither energy nor the constraint is kept: the constraint residual drifts at
// O(h^2) per unit time (nothing projects it back), which is the point of the comparison.
#pragma once

#include <cstdint>

#include "nhsim/complex_step.hpp"
#include "nhsim/controls.hpp"
#include "nhsim/integrators/descriptors/rk2.hpp"
#include "nhsim/integrators/nh_common.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk2Method {
 public:
  using T = NhTypes<S>;
  using VecQ = typename T::VecQ;
  using MatCQ = typename T::MatCQ;

  Rk2Method(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys),
        h_(h),
        dq_(sys.nq()),
        dp_(sys.nq()),
        qm_(sys.nq()),
        pm_(sys.nq()),
        f_(sys.nq()),
        mudot_(sys.nc(), sys.nq()),
        w_(sys) {
    q_.setZero();
    p_.setZero();
    if constexpr (!ConstraintDot<S>) {  // the complex step's workspace
      qc_.resize(sys.nq());
      muc_.resize(sys.nc(), sys.nq());
    }
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    k_ = 0;
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return 0; }

  StepStatus step(double& /*residual*/) {
    const double t = static_cast<double>(k_) * h_;
    field(q_, p_, t, dq_, dp_);
    qm_ = q_ + (0.5 * h_) * dq_;
    pm_ = p_ + (0.5 * h_) * dp_;
    field(qm_, pm_, t + 0.5 * h_, dq_, dp_);
    q_ += h_ * dq_;
    p_ += h_ * dp_;
    ++k_;
    return StepStatus::kOk;
  }

  /// The canonical index-1 vector field (dq, dp) = F(q, p, t) above.
  void field(const VecQ& q, const VecQ& p, double t, VecQ& dq, VecQ& dp) {
    sys_.inv_mass_times(q, p, dq);
    applied_force(sys_, q, t, f_);
    sys_.constraint(q, w_.mu);
    if constexpr (ConstraintDot<S>) {
      sys_.constraint_dot(q, dq, mudot_);
    } else {
      constraint_dot_by_complex_step(sys_, q, dq, qc_, muc_, mudot_);
    }
    constraint_gram(sys_, q, w_.mu, w_.minv_mut, w_.gram);
    w_.s = mudot_ * dq + w_.minv_mut.transpose() * f_;
    w_.lam = -w_.gram.partialPivLu().solve(w_.s);
    w_.mut_lam.noalias() = w_.mu.transpose() * w_.lam;  // a product into a workspace: see nh_rattle
    dp = f_ + w_.mut_lam;
  }

 private:
  const S& sys_;
  double h_;
  VecQ q_, p_;
  std::int64_t k_ = 0;
  VecQ dq_, dp_, qm_, pm_, f_;  // workspaces, sized once
  MatCQ mudot_;
  ConstraintWorkspace<S> w_;
  Eigen::VectorXcd qc_;  // complex step: q + i e v, and mu there (sized once)
  Eigen::MatrixXcd muc_;
};

}  // namespace nhsim

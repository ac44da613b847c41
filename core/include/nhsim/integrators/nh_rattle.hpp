// `nh_rattle`: the nonholonomic RATTLE method of [Kobilarov2010] eq. (10) (§4.1), for a constant
// mass matrix M, with the applied force f(q, t) = B(q) u(t) - grad V(q) in place of -V_q (eq.
// (14)'s forces; f = -grad V for systems without controls):
//   p_k+1/2 = p_k + h/2 (f(q_k, t_k) - mu(q_k)^T lambda_k)                        (10a)
//   q_k+1   = q_k + h M^-1 p_k+1/2                                                 (10b)
//   p_k+1   = p_k+1/2 + h/2 (f(q_k+1, t_k+1) - mu(q_k+1)^T lambda_k+1)             (10d)
//   0       = mu(q_k+1) M^-1 p_k+1                                                 (10e)
// The state is the triple (q_k, p_k, lambda_k) (§4.1): lambda_k of (10a) is the multiplier found
// by (10e) in the previous step, and lambda_0 = 0 (Remark 1). For constant M, (10e) is linear in
// lambda_k+1: (h/2) mu M^-1 mu^T lambda_k+1 = mu M^-1 (p_k+1/2 + h/2 f(q_k+1)), one nc x nc
// solve; the method is explicit (no Newton). p_k+1 satisfies the constraint to round-off.
// Second order (Theorem 2), reversible. With V = 0 and no controls the energy is preserved
// exactly (the half-step momenta are reflected, p_k+1/2 = (Id - 2 Q^T) p_k-1/2, an isometry
// of the M^-1 norm, and p_k = P^T p_k+1/2): [Kobilarov2010] §6.1 "energy-preserving", Theorem 1.
// Times: t_k = k h counted from the last set_canonical (controls are functions of t).
#pragma once

#include <cstdint>

#include "nhsim/controls.hpp"
#include "nhsim/integrators/descriptors/nh_rattle.hpp"
#include "nhsim/integrators/nh_common.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class NhRattleMethod {
 public:
  using T = NhTypes<S>;
  using VecQ = typename T::VecQ;
  using VecC = typename T::VecC;

  NhRattleMethod(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys),
        h_(h),
        q_(sys.nq()),
        p_(sys.nq()),
        lam_(sys.nc()),
        f_(sys.nq()),
        v_(sys.nq()),
        ph_(sys.nq()),
        w_(sys) {
    q_.setZero();
    p_.setZero();
    lam_.setZero();
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    lam_.setZero();  // Remark 1
    k_ = 0;
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return 0; }
  /// Multipliers lambda_k of the current state (length nc).
  const VecC& lambda() const { return lam_; }
  /// Overrides lambda_k (debugging / initialisation studies).
  void set_lambda(const VecC& lam) { lam_ = lam; }

  StepStatus step(double& /*residual*/) {
    const double t0 = static_cast<double>(k_) * h_, t1 = static_cast<double>(k_ + 1) * h_;
    // Products are taken into the workspace w_ (at dynamic sizes a product inside an expression
    // is a heap temporary; the values are the same).
    applied_force(sys_, q_, t0, f_);
    sys_.constraint(q_, w_.mu);
    w_.mut_lam.noalias() = w_.mu.transpose() * lam_;
    ph_ = p_ + (0.5 * h_) * (f_ - w_.mut_lam);  // (10a)
    sys_.inv_mass_times(q_, ph_, v_);
    q_ += h_ * v_;  // (10b)
    applied_force(sys_, q_, t1, f_);
    ph_ += (0.5 * h_) * f_;
    sys_.constraint(q_, w_.mu);
    constraint_gram(sys_, q_, w_.mu, w_.minv_mut, w_.gram);
    w_.s.noalias() = w_.minv_mut.transpose() * ph_;  // mu M^-1 (p_k+1/2 + h/2 f)
    lam_ = w_.gram.partialPivLu().solve(w_.s) / (0.5 * h_);
    // h/2 mu^T lambda as Eigen forms it within an expression, (h/2 mu^T) lambda: the same bits.
    w_.mut_lam.noalias() = (0.5 * h_) * (w_.mu.transpose() * lam_);
    p_ = ph_ - w_.mut_lam;  // (10d), (10e)
    ++k_;
    return StepStatus::kOk;
  }

 private:
  const S& sys_;
  double h_;
  VecQ q_, p_;
  VecC lam_;
  std::int64_t k_ = 0;
  VecQ f_, v_, ph_;  // applied force, M^-1 p, p_k+1/2
  ConstraintWorkspace<S> w_;
};

}  // namespace nhsim

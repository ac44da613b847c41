// `nh_rattle_projected`: the projected, multiplier-free form of the nonholonomic RATTLE method
// with control forces, [Kobilarov2010] eq. (14)-(16) (§4.2), constant mass matrix M:
//   p_1/2   = p_0 + h/2 P(q_0)^T f(q_0, t_0)                                       (16)
//   p_k+1/2 = (Id - 2 Q(q_k)^T) p_k-1/2 + h P(q_k)^T f(q_k, t_k),   k >= 1          (14a)
//   q_k+1   = q_k + h M^-1 p_k+1/2                                                  (14b)
//   p_k     = P(q_k)^T p_k-1/2 + h/2 P(q_k)^T f(q_k, t_k)     (reported state)      (15b)
// with Q(q) = M^-1 mu^T (mu M^-1 mu^T)^-1 mu, P = Id - Q (eq. (12)) and f(q, t) = B(q) u(t) -
// grad V(q). The state is (q_k, p_k-1/2); canonical() returns (q_k, p_k) by (15b), which
// satisfies the constraint to round-off. The last line of (16) prints "P(q_N) f" without the
// transpose; (15b) has P^T, which is what is used (the covector projector). Explicit, second
// order. Equivalent to `nh_rattle` (eq. (10)) whenever Q(q_0)^T f(q_0, t_0) = 0 (then (16)'s
// p_1/2 equals (10a) with lambda_0 = 0): the test checks the two agree to round-off.
#pragma once

#include <cstdint>

#include "nhsim/controls.hpp"
#include "nhsim/integrators/descriptors/nh_rattle_projected.hpp"
#include "nhsim/integrators/nh_common.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class NhRattleProjectedMethod {
 public:
  using T = NhTypes<S>;
  using VecQ = typename T::VecQ;

  NhRattleProjectedMethod(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys),
        h_(h),
        q_(sys.nq()),
        pm_(sys.nq()),
        f_(sys.nq()),
        y_(sys.nq()),
        qt_(sys.nq()),
        v_(sys.nq()),
        w_(sys) {
    q_.setZero();
    pm_.setZero();
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    pm_ = p;  // before the first step: p_0 itself
    k_ = 0;
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    if (k_ == 0) {
      p = pm_;
      return;
    }
    applied_force(sys_, q_, static_cast<double>(k_) * h_, f_);
    y_ = pm_ + (0.5 * h_) * f_;
    project_q_transpose(sys_, q_, y_, w_, qt_);
    p = y_ - qt_;  // (15b): P^T (p_k-1/2 + h/2 f)
  }
  bool state_finite() const { return all_finite(q_) && all_finite(pm_); }
  std::int64_t newton_iterations() const { return 0; }

  StepStatus step(double& /*residual*/) {
    applied_force(sys_, q_, static_cast<double>(k_) * h_, f_);
    if (k_ == 0) {
      project_q_transpose(sys_, q_, f_, w_, qt_);
      pm_ += (0.5 * h_) * (f_ - qt_);  // (16), first line
    } else {
      // (Id - 2 Q^T) p + h P^T f = (p + h f) - Q^T (2 p + h f)
      y_ = 2.0 * pm_ + h_ * f_;
      project_q_transpose(sys_, q_, y_, w_, qt_);
      pm_ += h_ * f_ - qt_;  // (14a)
    }
    sys_.inv_mass_times(q_, pm_, v_);
    q_ += h_ * v_;  // (14b)
    ++k_;
    return StepStatus::kOk;
  }

 private:
  const S& sys_;
  double h_;
  VecQ q_, pm_;  // q_k and p_k-1/2 (p_0 before the first step)
  std::int64_t k_ = 0;
  // Workspaces, sized once (canonical() is const but uses them: mutable).
  mutable VecQ f_, y_, qt_, v_;
  mutable ConstraintWorkspace<S> w_;
};

}  // namespace nhsim

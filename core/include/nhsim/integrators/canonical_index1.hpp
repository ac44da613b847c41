// The canonical index-1 equations of a constrained system with a constant mass matrix, the form
// of the explicit baselines rk2 and rk4 (on a system without a reduced form) ([Kobilarov2010] §3):
//   q' = v := M^-1 p,   p' = f(q, t) + mu(q)^T lambda,
//   lambda = -(mu M^-1 mu^T)^-1 (mudot(q, v) v + mu M^-1 f(q, t)),
// lambda from the time derivative of the constraint mu(q) M^-1 p = 0, with
// mudot(q, v) = sum_i dmu/dq^i v^i from the system's constraint_dot where it has one, else by the
// complex step Im mu(q + i e v) / e, e = 1e-20 (exact to round-off, one complex evaluation of mu),
// and f(q, t) = B(q) u(t) - grad V(q). Nothing projects onto the constraint: a method on these
// equations keeps mu(q) M^-1 p = 0 only to its own order.
#pragma once

#include <Eigen/Dense>

#include "nhsim/complex_step.hpp"
#include "nhsim/controls.hpp"
#include "nhsim/integrators/nh_common.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// The vector field (dq, dp) = F(q, p, t) above, with its workspace sized once (no allocation
/// per call). q, p, dq, dp have length nq; t in the system's time units.
template <class S>
class CanonicalIndex1Field {
 public:
  using VecQ = typename NhTypes<S>::VecQ;
  using MatCQ = typename NhTypes<S>::MatCQ;

  explicit CanonicalIndex1Field(const S& sys)
      : sys_(sys), f_(sys.nq()), mudot_(sys.nc(), sys.nq()), w_(sys) {
    if constexpr (!ConstraintDot<S>) {  // the complex step's workspace
      qc_.resize(sys.nq());
      muc_.resize(sys.nc(), sys.nq());
    }
  }

  void operator()(const VecQ& q, const VecQ& p, double t, VecQ& dq, VecQ& dp) {
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
  VecQ f_;
  MatCQ mudot_;
  ConstraintWorkspace<S> w_;
  Eigen::VectorXcd qc_;  // complex step: q + i e v, and mu there (sized once)
  Eigen::MatrixXcd muc_;
};

}  // namespace nhsim

// What every Newton-solved canonical method shares (gonzalez_f, avf_f, i_dla, spark2 and the
// momentum-matching methods dla, mla and em): the accessors of StepperMethod (nhsim/stepper.hpp)
// over the method's state, and one Newton solve of its residual with the Jacobian by forward
// differences of a (possibly smoother) residual. Each method is a discretisation: its unknowns,
// predictor, residual and how a solution advances the state.
//
// NewtonMethodBase<Method> is a CRTP base without data members: the method keeps its members, and
// with them its layout, which is part of its bits (Eigen's fixed-size products round by their
// destination's alignment, docs/development.md), so moving code here moved none. The method
// declares `friend NewtonMethodBase<Method>;` and has the members
//   q_, p_         the state (VecQ), canonical coordinates
//   newton_        SimplifiedNewton<NX> (nhsim/newton.hpp)
//   ns_            NewtonSettings
//   r0_, r1_, xt_  VecX workspaces of the forward differences.
#pragma once

#include <cstdint>

#include "nhsim/integrators/canonical_util.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

template <class Method>
class NewtonMethodBase {
 public:
  template <class VQ>
  void canonical(VQ& q, VQ& p) const {
    q = self().q_;
    p = self().p_;
  }
  bool state_finite() const { return all_finite(self().q_) && all_finite(self().p_); }
  std::int64_t newton_iterations() const { return self().newton_.iterations(); }
  const auto& newton() const { return self().newton_; }
  auto& newton() { return self().newton_; }

 protected:
  /// Solves residual(x, r) = 0 for x from the predictor in x, with the Jacobian of
  /// jacobian_residual(x, r) by forward differences (SimplifiedNewton::solve: its settings ns_,
  /// `state_scale` its round-off floor's scale). Returns kOk or kNewtonFailed; `residual_out` is
  /// the last increment norm.
  template <class VecX, class Residual, class JacobianResidual>
  StepStatus solve(VecX& x, Residual&& residual, JacobianResidual&& jacobian_residual,
                   double& residual_out, double state_scale = 0.0) {
    Method& m = self();
    auto jacobian = [&](const VecX& y, auto& jac) {
      forward_difference_jacobian(jacobian_residual, y, m.r0_, m.r1_, m.xt_, jac);
    };
    return m.newton_.solve(x, residual, jacobian, m.ns_, residual_out, state_scale);
  }

 private:
  const Method& self() const { return static_cast<const Method&>(*this); }
  Method& self() { return static_cast<Method&>(*this); }
};

}  // namespace nhsim

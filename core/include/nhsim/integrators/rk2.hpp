// `rk2`: the explicit midpoint rule, the "standard Runge-Kutta second-order method" baseline of
// [Kobilarov2010] §6 (Fig. 2, Fig. 4). The paper does not say which form of the equations it was
// applied to; here (documented choice) it is the CANONICAL index-1 form with a constant mass
// matrix (nhsim/integrators/canonical_index1.hpp: the multiplier from the differentiated
// constraint). One step: z_1/2 = z + h/2 F(z, t), z' = z + h F(z_1/2, t + h/2). Neither energy nor
// the constraint is kept: the constraint residual drifts at O(h^2) per unit time (nothing
// projects it back), which is the point of the comparison.
#pragma once

#include <cstdint>

#include "nhsim/integrators/canonical_index1.hpp"
#include "nhsim/integrators/descriptors/rk2.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk2Method {
 public:
  using VecQ = typename NhTypes<S>::VecQ;

  Rk2Method(const S& sys, double h, NewtonSettings /*unused*/)
      : h_(h), dq_(sys.nq()), dp_(sys.nq()), qm_(sys.nq()), pm_(sys.nq()), field_(sys) {
    q_.setZero();
    p_.setZero();
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
    field_(q_, p_, t, dq_, dp_);
    qm_ = q_ + (0.5 * h_) * dq_;
    pm_ = p_ + (0.5 * h_) * dp_;
    field_(qm_, pm_, t + 0.5 * h_, dq_, dp_);
    q_ += h_ * dq_;
    p_ += h_ * dp_;
    ++k_;
    return StepStatus::kOk;
  }

 private:
  double h_;
  VecQ q_, p_;
  std::int64_t k_ = 0;
  VecQ dq_, dp_, qm_, pm_;  // workspaces, sized once
  CanonicalIndex1Field<S> field_;
};

}  // namespace nhsim

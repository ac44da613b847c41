// `rk4`: the classical explicit fourth-order Runge-Kutta method, the non-geometric baseline.
//  * Rk4Method, on a system with a reduced form: the reduced ODE zeta' = Pi(zeta) grad H(zeta),
//    [Celledoni2019] eq. (9). It keeps the constraints exactly (the state lives on D*) but not the
//    energy.
//  * Rk4CanonicalMethod, on a system without one (a user-defined system, the snakeboard, ...):
//    the canonical index-1 equations of rk2 (nhsim/integrators/canonical_index1.hpp), so neither
//    the energy nor the constraint is kept: the residual mu(q) M^-1 p drifts at O(h^4).
#pragma once

#include <cstdint>
#include <tuple>

#include "nhsim/integrators/canonical_index1.hpp"
#include "nhsim/integrators/descriptors/rk4.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk4Method {
 public:
  using VecQ = typename S::VecQ;
  using VecZ = typename S::VecZ;
  static constexpr int NQ = S::NQ;
  static constexpr int NR = S::NR;
  static_assert(!has_controls<S> && !has_loads<S>, "the reduced ODE has no term for forces");

  Rk4Method(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys), h_(h), z_(sys.nz()), acc_(sys.nz()), kk_(sys.nz()), t_(sys.nz()), g_(sys.nz()) {}

  void set_canonical(const VecQ& q, const VecQ& p) { zeta_from_canonical(sys_, q, p, z_); }
  void canonical(VecQ& q, VecQ& p) const { canonical_from_zeta(sys_, z_, q, p); }
  bool state_finite() const { return all_finite(z_); }
  std::int64_t newton_iterations() const { return 0; }
  /// The state zeta, for lanes to gather and scatter (core/src/lanes/method_lanes.hpp).
  auto state() { return std::tie(z_); }
  auto state() const { return std::tie(z_); }

  StepStatus step(double& /*residual*/) {
    advance_by(1);
    return StepStatus::kOk;
  }
  /// k steps at once: at a fixed size the state stays in locals (registers, over lanes) from one
  /// step to the next.
  void advance_by(std::int64_t k) {
    if constexpr (S::NZ == Eigen::Dynamic) {
      for (std::int64_t i = 0; i < k; ++i) step_impl(z_, acc_, kk_, t_, g_);
    } else {
      // Locals the compiler can keep in registers (members written through references might
      // alias the state, forcing every value through memory).
      VecZ z = z_, acc, kk, t, g;
      for (std::int64_t i = 0; i < k; ++i) step_impl(z, acc, kk, t, g);
      z_ = z;
    }
  }

 private:
  /// One step. k1 + 2 k2 + 2 k3 + k4 is summed as the stages come, in the order of the whole
  /// expression, ((k1 + 2 k2) + 2 k3) + k4: four vectors live instead of six. Inlined into the
  /// loop over steps, whose locals then cannot alias.
  EIGEN_ALWAYS_INLINE void step_impl(VecZ& z, VecZ& acc, VecZ& kk, VecZ& t, VecZ& g) const {
    sys_.reduced_rhs(z, g, kk);
    acc = kk;
    t = z + (0.5 * h_) * kk;
    sys_.reduced_rhs(t, g, kk);
    acc += 2.0 * kk;
    t = z + (0.5 * h_) * kk;
    sys_.reduced_rhs(t, g, kk);
    acc += 2.0 * kk;
    t = z + h_ * kk;
    sys_.reduced_rhs(t, g, kk);
    z += (h_ / 6.0) * (acc + kk);
  }

  const S& sys_;
  double h_;
  VecZ z_, acc_, kk_, t_, g_;
};

template <class S>
class Rk4CanonicalMethod {
 public:
  using VecQ = typename NhTypes<S>::VecQ;
  static_assert(!ReducedForm<S>, "a system with a reduced form runs Rk4Method");

  Rk4CanonicalMethod(const S& sys, double h, NewtonSettings /*unused*/) : h_(h), field_(sys) {
    for (VecQ* v : {&q_, &p_, &qs_, &ps_}) v->setZero(sys.nq());
    for (int i = 0; i < 4; ++i) {
      dq_[i].setZero(sys.nq());
      dp_[i].setZero(sys.nq());
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

  /// Stages at t, t + h/2, t + h/2, t + h (t = k h, the time of the controls and loads).
  StepStatus step(double& /*residual*/) {
    const double t = static_cast<double>(k_) * h_;
    field_(q_, p_, t, dq_[0], dp_[0]);
    qs_ = q_ + (0.5 * h_) * dq_[0];
    ps_ = p_ + (0.5 * h_) * dp_[0];
    field_(qs_, ps_, t + 0.5 * h_, dq_[1], dp_[1]);
    qs_ = q_ + (0.5 * h_) * dq_[1];
    ps_ = p_ + (0.5 * h_) * dp_[1];
    field_(qs_, ps_, t + 0.5 * h_, dq_[2], dp_[2]);
    qs_ = q_ + h_ * dq_[2];
    ps_ = p_ + h_ * dp_[2];
    field_(qs_, ps_, t + h_, dq_[3], dp_[3]);
    q_ += (h_ / 6.0) * (dq_[0] + 2.0 * dq_[1] + 2.0 * dq_[2] + dq_[3]);
    p_ += (h_ / 6.0) * (dp_[0] + 2.0 * dp_[1] + 2.0 * dp_[2] + dp_[3]);
    ++k_;
    return StepStatus::kOk;
  }

 private:
  double h_;
  VecQ q_, p_;
  std::int64_t k_ = 0;
  VecQ qs_, ps_, dq_[4], dp_[4];  // stage state and slopes, sized once
  CanonicalIndex1Field<S> field_;
};

}  // namespace nhsim

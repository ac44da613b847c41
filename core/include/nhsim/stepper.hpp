// Stepper: the stateful instance of an integrator for one trajectory (docs/design.md).
//
// The virtual interface is crossed once per sample interval, not once per step: advance(k) runs
// k steps in a tight, allocation-free loop inside the concrete stepper (StepperImpl<S, Method>).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <memory>

#include "nhsim/eigen_util.hpp"

namespace nhsim {

enum class StepStatus : int {
  kOk = 0,
  kNewtonFailed = 1,  ///< the implicit solve did not reach its tolerance within the cap
  kNonFinite = 2,     ///< the state became NaN or infinite
};

/// Outcome of advance(): steps_done steps succeeded; on failure the state is the last good one.
struct AdvanceResult {
  StepStatus status = StepStatus::kOk;
  std::int64_t steps_done = 0;
  double residual = 0.0;  ///< last Newton increment norm when status == kNewtonFailed
};

/// Solver settings of an implicit integrator. tol is relative and componentwise: an iteration
/// stops when every |increment_i| <= tol * max(1, |unknown_i|).
struct NewtonSettings {
  double tol = 1e-14;
  int max_iter = 50;
};

class Stepper {
 public:
  virtual ~Stepper() = default;
  /// Sets the state from canonical coordinates; q and p have length nq of the system and p is
  /// assumed to satisfy the constraints (the ensemble validates explicit states).
  virtual void set_state(const Eigen::VectorXd& q, const Eigen::VectorXd& p) = 0;
  /// Takes up to k steps of size h; stops at the first failing step.
  virtual AdvanceResult advance(std::int64_t k) = 0;
  /// Current state in canonical coordinates (q, p); q and p must be pre-sized to nq.
  virtual void get_state(Eigen::VectorXd& q, Eigen::VectorXd& p) const = 0;
  /// H(q, p) of the current state in canonical coordinates.
  virtual double energy() const = 0;
  /// max_alpha |mu^alpha(q) M^-1(q) p| of the current state, canonical coordinates.
  virtual double constraint_residual() const = 0;
  /// energy() and constraint_residual() together, with one conversion to canonical coordinates.
  virtual void energy_and_residual(double& energy, double& residual) const = 0;
  /// Total Newton iterations taken since construction (0 for explicit methods).
  virtual std::int64_t newton_iterations() const { return 0; }
};

/// True when every entry of v is finite (one reduction: NaN and inf propagate through a sum).
template <class V>
inline bool all_finite(const V& v) {
  return std::isfinite(v.sum());
}

/// The contract of an integrator's method: the per-trajectory state of integrator I on system S
/// (I::Method<S>), built from the system, the step h [s] and the Newton settings (read only by
/// implicit methods):
///   set_canonical(q, p)  sets the state from canonical coordinates (q, p of length nq);
///   step(residual)       takes one step of size h, allocation-free; kOk, or kNewtonFailed with
///                        the last increment norm in `residual` and the state unchanged;
///   canonical(q, p)      the current state in canonical coordinates;
///   state_finite()       whether every component of the state is finite;
///   newton_iterations()  Newton iterations since construction (0 for explicit methods).
template <class M, class S>
concept StepperMethod = std::constructible_from<M, const S&, double, NewtonSettings> &&
    requires(M& m, const M& cm, const typename S::VecQ& q, typename S::VecQ& out,
             double& residual) {
  m.set_canonical(q, q);
  { m.step(residual) } -> std::same_as<StepStatus>;
  cm.canonical(out, out);
  { cm.state_finite() } -> std::convertible_to<bool>;
  { cm.newton_iterations() } -> std::convertible_to<std::int64_t>;
};

/// Adapts a Method (StepperMethod: the per-trajectory integrator state over system S) to the
/// Stepper interface.
template <class S, class Method>
class alignas(64) StepperImpl final : public Stepper {
  static_assert(StepperMethod<Method, S>, "an integrator's Method<S> must be a StepperMethod");

 public:
  using VecQ = typename S::VecQ;
  template <class... Args>
  explicit StepperImpl(const S& sys, Args&&... args)
      : sys_(sys), method_(sys_, std::forward<Args>(args)...), q_(sys.nq()), p_(sys.nq()) {}
  // Methods keep a reference to sys_: a copy would point into the original.
  StepperImpl(const StepperImpl&) = delete;
  StepperImpl& operator=(const StepperImpl&) = delete;

  void set_state(const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    q_ = q;
    p_ = p;
    method_.set_canonical(q_, p_);
  }

  /// Runs k steps. Newton failures stop at the failing step (state = last good one).
  /// Finiteness is checked once per call: NaN and infinities propagate through every later
  /// step, so a non-finite state at the end means it became non-finite inside this call; the
  /// call then reports kNonFinite with steps_done = 0 (the last state known good is the one it
  /// started from).
  AdvanceResult advance(std::int64_t k) override {
    AdvanceResult r;
    for (std::int64_t i = 0; i < k; ++i) {
      double residual = 0.0;
      const StepStatus st = method_.step(residual);
      if (st != StepStatus::kOk) {
        r.status = st;
        r.residual = residual;
        break;
      }
      ++r.steps_done;
    }
    if (!method_.state_finite()) {
      r.status = StepStatus::kNonFinite;
      r.steps_done = 0;
    }
    return r;
  }

  void get_state(Eigen::VectorXd& q, Eigen::VectorXd& p) const override {
    method_.canonical(q_, p_);
    q = q_;
    p = p_;
  }

  double energy() const override {
    method_.canonical(q_, p_);
    return sys_.hamiltonian(q_, p_);
  }

  double constraint_residual() const override {
    method_.canonical(q_, p_);
    return sys_.constraint_residual(q_, p_);
  }

  void energy_and_residual(double& energy, double& residual) const override {
    method_.canonical(q_, p_);
    energy = sys_.hamiltonian(q_, p_);
    residual = sys_.constraint_residual(q_, p_);
  }

  std::int64_t newton_iterations() const override { return method_.newton_iterations(); }

  Method& method() { return method_; }

 private:
  S sys_;
  Method method_;
  mutable VecQ q_, p_;
};

}  // namespace nhsim

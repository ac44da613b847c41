// Internal: the lane steppers of the implicit methods whose step is SimplifiedNewton's iteration
// (newton.hpp). The iteration runs in SIMD, in the method's kernel, with a convergence mask per
// lane: on each lane's stored inverse Jacobian and, where the kernel can form one, on a fresh
// inverse too. Everything else a lane's step may need (a fresh inverse the kernel cannot form,
// the damped Newton fallback, a failure) is that lane's own scalar stepper, the library's
// StepperImpl made by the factory: the kernel hands the step back untouched and the scalar
// stepper takes it from the same state, without a factorisation (its fresh attempt is the one
// the iteration would come to), so each lane keeps its scalar trajectory bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "lane_rows.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/spec_types.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim::lanes {

/// Lanes of the integrator I, whose method's newton() is a SimplifiedNewton, on the state that
/// `Base` (a ChaoticQuarticLaneStepper) keeps. A method's lanes say how a step runs in SIMD and
/// how a lane's state moves between the lanes and its scalar stepper. The lanes own the
/// factorisations: which lanes hold an inverse, and the inverses themselves.
template <class I, class Base>
class NewtonLanes : public Base {
 public:
  using Sys = typename Base::Sys;
  using Method = typename I::template Method<Sys>;
  /// The Newton unknowns.
  static constexpr int kNx =
      std::remove_cvref_t<decltype(std::declval<const Method&>().newton())>::Vec::RowsAtCompileTime;

  /// `kernel_factorises`: whether the kernel forms a fresh inverse itself (else a lane without one
  /// steps by its scalar stepper).
  NewtonLanes(const Sys& sys, const IntegratorChoice& choice, int width, bool kernel_factorises)
      : Base(sys, width),
        h_(choice.h),
        newton_(newton_settings<I>(choice)),  // as the factory gives the scalar steppers
        inverse_(width),
        kernel_factorises_(kernel_factorises),
        results_(static_cast<std::size_t>(width)),
        failed_(static_cast<std::size_t>(width), false),
        stale_(static_cast<std::size_t>(width), false) {
    for (int l = 0; l < width; ++l) scalar_.push_back(make_stepper_for(sys, choice));
  }

  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    scalar_[index(lane)]->set_state(q, p);
    from_scalar(lane);
    failed_[index(lane)] = false;
  }

  void advance(std::int64_t k) override {
    const int width = this->width();
    for (int l = 0; l < width; ++l) {
      if (failed_[index(l)]) {
        results_[index(l)].steps_done = 0;  // still failed
      } else {
        results_[index(l)] = AdvanceResult{};
      }
    }
    unsigned stepping = 0;
    for (int l = 0; l < width; ++l) stepping |= failed_[index(l)] ? 0U : 1U << l;
    for (std::int64_t s = 0; s < k && stepping != 0; ++s) {
      const unsigned in_simd = kernel_factorises_ ? stepping : stepping & factorised_;
      unsigned scalar = stepping & ~in_simd;
      if (in_simd != 0) {
        NewtonStepOutcome out;
        simd_step(in_simd, factorised_ & in_simd, out);
        for (int l = 0; l < width; ++l) {
          if ((out.ok & (1U << l)) != 0) {
            ++results_[index(l)].steps_done;
            stale_[index(l)] = true;
          }
        }
        factorised_ = (factorised_ & ~in_simd) | (out.ok & ~out.refresh);
        scalar |= out.handed_back;
      }
      for (int l = 0; l < width; ++l) {
        if ((scalar & (1U << l)) != 0 && !scalar_step(l)) stepping &= ~(1U << l);
      }
    }
    // Stepper::advance's check of the state at the end of the call.
    for (int l = 0; l < width; ++l) {
      if (!this->finite(l)) {
        results_[index(l)].status = StepStatus::kNonFinite;
        results_[index(l)].steps_done = 0;
      }
    }
  }

  AdvanceResult result(int lane) const override { return results_[index(lane)]; }

 protected:
  /// One step in SIMD of the lanes in `lanes` (bits), those in `factorised` with their stored
  /// inverse (every one of them unless the kernel factorises).
  virtual void simd_step(unsigned lanes, unsigned factorised, NewtonStepOutcome& out) = 0;
  /// Lane `lane`'s state into `m`, its scalar method, after steps in SIMD (not the inverse: a
  /// scalar step starts without one).
  virtual void give_to_scalar(int lane, Method& m) = 0;
  /// `m`'s state into lane `lane` (the inverse is taken here).
  virtual void take_from_scalar(int lane, const Method& m) = 0;

  /// A lane's index into the per-lane vectors.
  static std::size_t index(int lane) { return static_cast<std::size_t>(lane); }

  double h_;
  NewtonSettings newton_;
  LaneRows<kNx * kNx> inverse_;  // each lane's J^-1, (i, j) at row kNx i + j

 private:
  /// What make_stepper_for<Sys> returns for the method (make_pair_stepper).
  using ScalarStepper = StepperImpl<Sys, Method>;
  Method& method(int lane) { return static_cast<ScalarStepper&>(*scalar_[index(lane)]).method(); }

  void from_scalar(int lane) {
    const Method& m = method(lane);
    take_from_scalar(lane, m);
    stale_[index(lane)] = false;
    const unsigned bit = 1U << lane;
    if (!m.newton().has_factorisation()) {
      factorised_ &= ~bit;
      return;
    }
    const auto& inv = m.newton().inverse();
    for (int i = 0; i < kNx; ++i) {
      for (int j = 0; j < kNx; ++j) inverse_.at(kNx * i + j, lane) = inv(i, j);
    }
    factorised_ |= bit;
  }

  /// One step of lane `lane` by its scalar stepper, from the lane's state and without a
  /// factorisation: the lane's inverse, if it has one, did not converge (the scalar iteration
  /// would go on to a fresh one), or the kernel cannot form one. A failed step ends the lane's
  /// advance() as it ends Stepper::advance(); false then.
  bool scalar_step(int lane) {
    if (stale_[index(lane)]) {
      give_to_scalar(lane, method(lane));
      stale_[index(lane)] = false;
    }
    method(lane).newton().invalidate();
    const AdvanceResult r = scalar_[index(lane)]->advance(1);
    from_scalar(lane);
    AdvanceResult& out = results_[index(lane)];
    if (r.status == StepStatus::kOk) {
      ++out.steps_done;
      return true;
    }
    // kNewtonFailed (the state is the last good one), or kNonFinite: the state is not finite,
    // which the end of advance() reports.
    out.status = r.status;
    out.residual = r.residual;
    failed_[index(lane)] = true;
    return false;
  }

  bool kernel_factorises_;
  unsigned factorised_ = 0;  // bit l: lane l holds an inverse (the kernel's or its scalar's)
  std::vector<std::unique_ptr<Stepper>> scalar_;
  std::vector<AdvanceResult> results_;
  std::vector<bool> failed_;  // a step failed: not stepped again until set_state
  std::vector<bool> stale_;   // stepped in SIMD since the scalar stepper last had its state
};

}  // namespace nhsim::lanes

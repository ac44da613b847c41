// The lane steppers of the discrete gradient methods gonzalez, avf, midpoint and itoh_abe on the
// chaotic quartic system (n = 3). A lane's usual step, the simplified Newton iteration on the
// lane's reused inverse Jacobian, runs in SIMD (chaotic_quartic_discrete_gradient_kernel.hpp), with
// a convergence mask per lane. Everything else a lane's step may need (the first step after
// set_state, a fresh Jacobian, its factorisation, the damped Newton fallback, a failure) is that
// lane's own scalar stepper, the library's StepperImpl made by the factory: the kernel hands the
// step back untouched and the scalar stepper takes it from the same state, so each lane keeps its
// scalar trajectory bit for bit.
#include <array>
#include <memory>
#include <vector>

#include "chaotic_quartic_lane_stepper.hpp"
#include "chaotic_quartic_lanes.hpp"
#include "lane_rows.hpp"
#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/gonzalez.hpp"
#include "nhsim/integrators/itoh_abe.hpp"
#include "nhsim/integrators/midpoint.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
using VecZ = Sys::VecZ;

static_assert(AvfGradient::kX[0] == lanes::kAvfX[0] && AvfGradient::kX[1] == lanes::kAvfX[1] &&
                  AvfGradient::kX[2] == lanes::kAvfX[2] && AvfGradient::kX[3] == lanes::kAvfX[3] &&
                  AvfGradient::kW[0] == lanes::kAvfW[0] && AvfGradient::kW[1] == lanes::kAvfW[1] &&
                  AvfGradient::kW[2] == lanes::kAvfW[2] && AvfGradient::kW[3] == lanes::kAvfW[3],
              "the avf and itoh_abe lane kernels' quadrature must be the scalar one");
static_assert(ItohAbeGradient::kQuotientThreshold == lanes::kItohAbeQuotientThreshold,
              "the itoh_abe lane kernel's quotient threshold must be the scalar one");

/// Lanes of the discrete gradient method I (GonzalezIntegrator, AvfIntegrator,
/// MidpointIntegrator, ItohAbeIntegrator), stepped by its kernel.
template <class I>
class DiscreteGradientLanes final : public lanes::ReducedStateLanes {
 public:
  using Method = typename I::template Method<Sys>;
  /// What make_stepper_for<Sys> returns for I (make_pair_stepper).
  using ScalarStepper = StepperImpl<Sys, Method>;

  DiscreteGradientLanes(const Sys& sys, const IntegratorChoice& choice, int width,
                        lanes::DiscreteGradientKernel kernel)
      : ReducedStateLanes(sys, width),
        h_(choice.h),
        // newton_settings<I>(choice), as the factory gives the scalar steppers
        tol_(choice.newton_tol > 0.0 ? choice.newton_tol : I::kNewtonTol),
        max_iter_(choice.newton_max_iter > 0 ? choice.newton_max_iter : I::kNewtonMaxIter),
        kernel_(kernel),
        increments_(width),
        inverse_(width),
        h0_(width),
        history_(width),
        results_(static_cast<std::size_t>(width)),
        failed_(static_cast<std::size_t>(width), false),
        stale_(static_cast<std::size_t>(width), false) {
    for (int l = 0; l < width; ++l) scalar_.push_back(make_stepper_for(sys, choice));
  }

  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    scalar_[index(lane)]->set_state(q, p);
    take_from_scalar(lane);
    failed_[index(lane)] = false;
  }

  void advance(std::int64_t k) override {
    for (int l = 0; l < width_; ++l) {
      if (failed_[index(l)]) {
        results_[index(l)].steps_done = 0;  // still failed
      } else {
        results_[index(l)] = AdvanceResult{};
      }
    }
    const lanes::DiscreteGradientLaneBlock block{zeta_.row(0), increments_.row(0), inverse_.row(0),
                                                 h0_.row(0), history_.row(0)};
    for (std::int64_t s = 0; s < k; ++s) {
      unsigned in_simd = 0, scalar = 0;
      for (int l = 0; l < width_; ++l) {
        if (failed_[index(l)]) continue;
        (method(l).newton().has_factorisation() ? in_simd : scalar) |= 1U << l;
      }
      if ((in_simd | scalar) == 0) break;
      if (in_simd != 0) {
        lanes::DiscreteGradientStepOutcome out;
        kernel_(block, in_simd, h_, tol_, max_iter_, out);
        for (int l = 0; l < width_; ++l) {
          const unsigned bit = 1U << l;
          if ((out.ok & bit) != 0) {
            ++results_[index(l)].steps_done;
            stale_[index(l)] = true;
            if ((out.refresh & bit) != 0) method(l).newton().invalidate();
          }
        }
        scalar |= out.handed_back;
      }
      for (int l = 0; l < width_; ++l) {
        if ((scalar & (1U << l)) != 0) scalar_step(l);
      }
    }
    // Stepper::advance's check of the state at the end of the call.
    for (int l = 0; l < width_; ++l) {
      if (!finite(l)) {
        results_[index(l)].status = StepStatus::kNonFinite;
        results_[index(l)].steps_done = 0;
      }
    }
  }

  AdvanceResult result(int lane) const override { return results_[index(lane)]; }

 private:
  static std::size_t index(int lane) { return static_cast<std::size_t>(lane); }
  Method& method(int lane) { return static_cast<ScalarStepper&>(*scalar_[index(lane)]).method(); }

  /// One step of lane `lane` by its scalar stepper, from the lane's state; a failed step ends
  /// the lane's advance() as it ends Stepper::advance().
  void scalar_step(int lane) {
    if (stale_[index(lane)]) give_to_scalar(lane);
    const AdvanceResult r = scalar_[index(lane)]->advance(1);
    take_from_scalar(lane);
    AdvanceResult& out = results_[index(lane)];
    if (r.status == StepStatus::kOk) {
      ++out.steps_done;
      return;
    }
    // kNewtonFailed (the state is the last good one), or kNonFinite: the state is not finite,
    // which the end of advance() reports.
    out.status = r.status;
    out.residual = r.residual;
    failed_[index(lane)] = true;
  }

  /// The lane's state (zeta, increments, H, history; the inverse is the scalar stepper's own)
  /// into its scalar stepper, after steps in SIMD.
  void give_to_scalar(int lane) {
    typename Method::History h;
    VecZ z;
    zeta_.take(lane, 0, z);
    increments_.take(lane, 0, h.d1);
    increments_.take(lane, kNz, h.d2);
    increments_.take(lane, 2 * kNz, h.d3);
    h.count = static_cast<int>(history_.at(0, lane));
    h.h0 = h0_.at(0, lane);
    method(lane).restore(z, h);
    stale_[index(lane)] = false;
  }

  /// The scalar stepper's state, and its inverse Jacobian where it holds one, into the lane.
  void take_from_scalar(int lane) {
    Method& m = method(lane);
    const typename Method::History h = m.history();
    zeta_.put(lane, 0, m.zeta());
    increments_.put(lane, 0, h.d1);
    increments_.put(lane, kNz, h.d2);
    increments_.put(lane, 2 * kNz, h.d3);
    history_.at(0, lane) = h.count;
    h0_.at(0, lane) = h.h0;
    if (m.newton().has_factorisation()) {
      const auto& inv = m.newton().inverse();
      for (int i = 0; i < kNz; ++i) {
        for (int j = 0; j < kNz; ++j) inverse_.at(kNz * i + j, lane) = inv(i, j);
      }
    }
    stale_[index(lane)] = false;
  }

  double h_, tol_;
  int max_iter_;
  lanes::DiscreteGradientKernel kernel_;
  lanes::LaneRows<3 * kNz> increments_;
  lanes::LaneRows<kNz * kNz> inverse_;
  lanes::LaneRows<1> h0_, history_;
  std::vector<std::unique_ptr<Stepper>> scalar_;
  std::vector<AdvanceResult> results_;
  std::vector<bool> failed_;  // a step failed: not stepped again until set_state
  std::vector<bool> stale_;   // stepped in SIMD since the scalar stepper last had its state
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_discrete_gradient_lanes(
    const ChaoticQuartic<3>& sys, const IntegratorChoice& choice, int width,
    lanes::DiscreteGradientKernel kernel) {
  if (choice.integrator == GonzalezIntegrator::kId) {
    return std::make_unique<DiscreteGradientLanes<GonzalezIntegrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == AvfIntegrator::kId) {
    return std::make_unique<DiscreteGradientLanes<AvfIntegrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == MidpointIntegrator::kId) {
    return std::make_unique<DiscreteGradientLanes<MidpointIntegrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == ItohAbeIntegrator::kId) {
    return std::make_unique<DiscreteGradientLanes<ItohAbeIntegrator>>(sys, choice, width, kernel);
  }
  return nullptr;
}

}  // namespace nhsim

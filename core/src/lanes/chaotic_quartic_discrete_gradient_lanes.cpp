// The lane steppers of the discrete gradient methods gonzalez, avf, midpoint and itoh_abe on the
// chaotic quartic system (n = 3): a step on a stored inverse in SIMD
// (chaotic_quartic_discrete_gradient_kernel.hpp), everything else by each lane's scalar stepper
// (newton_lanes.hpp).
#include <memory>

#include "chaotic_quartic_lane_stepper.hpp"
#include "chaotic_quartic_lanes.hpp"
#include "lane_rows.hpp"
#include "newton_lanes.hpp"
#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/gonzalez.hpp"
#include "nhsim/integrators/itoh_abe.hpp"
#include "nhsim/integrators/midpoint.hpp"
#include "nhsim/integrators/reduced_state.hpp"

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
/// MidpointIntegrator, ItohAbeIntegrator), stepped by its kernel on the inverses their scalar
/// steppers form.
template <class I>
class DiscreteGradientLanes final : public lanes::NewtonLanes<I, lanes::ReducedStateLanes> {
 public:
  using Method = typename I::template Method<Sys>;

  DiscreteGradientLanes(const Sys& sys, const IntegratorChoice& choice, int width,
                        lanes::DiscreteGradientKernel kernel)
      : lanes::NewtonLanes<I, lanes::ReducedStateLanes>(sys, choice, width,
                                                        /*kernel_factorises=*/false),
        kernel_(kernel),
        increments_(width),
        h0_(width),
        history_(width) {}

 private:
  void simd_step(unsigned lanes, unsigned /*factorised: all of them*/,
                 lanes::NewtonStepOutcome& out) override {
    const lanes::DiscreteGradientLaneBlock block{
        this->zeta_.row(0), increments_.row(0), this->inverse_.row(0), h0_.row(0), history_.row(0)};
    kernel_(block, lanes, this->h_, this->newton_.tol, this->newton_.max_iter, out);
  }

  /// The lane's zeta, increments, H and history.
  void give_to_scalar(int lane, Method& m) override {
    typename Method::History h;
    VecZ z;
    this->zeta_.take(lane, 0, z);
    increments_.take(lane, 0, h.d1);
    increments_.take(lane, kNz, h.d2);
    increments_.take(lane, 2 * kNz, h.d3);
    h.count = static_cast<int>(history_.at(0, lane));
    h.h0 = h0_.at(0, lane);
    m.restore(z, h);
  }

  void take_from_scalar(int lane, const Method& m) override {
    const typename Method::History h = m.history();
    this->zeta_.put(lane, 0, m.zeta());
    increments_.put(lane, 0, h.d1);
    increments_.put(lane, kNz, h.d2);
    increments_.put(lane, 2 * kNz, h.d3);
    history_.at(0, lane) = h.count;
    h0_.at(0, lane) = h.h0;
  }

  static constexpr int kNz = lanes::ReducedStateLanes::kNz;
  lanes::DiscreteGradientKernel kernel_;
  lanes::LaneRows<3 * kNz> increments_;
  lanes::LaneRows<1> h0_, history_;
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

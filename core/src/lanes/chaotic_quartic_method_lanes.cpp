// Lanes of the chaotic quartic system from the integrators' own code (method_lanes.hpp): si_dla
// and rk4 at n = 2 and 5 for the dynamic-size system of the catalogue, stepped as
// ChaoticQuartic<2> and ChaoticQuartic<5>. (At n = 3 the hand-written kernels are faster still,
// docs/performance.md "SIMD lanes", and step instead.)
#include "chaotic_quartic_lanes.hpp"
#include "method_lanes.hpp"
#include "nhsim/integrators/rk4.hpp"
#include "nhsim/integrators/si_dla.hpp"

namespace nhsim {
namespace {

template <class R, class S>
std::unique_ptr<LaneStepper> method_lanes(const R& reporting, const S& sys,
                                          const IntegratorChoice& choice,
                                          const LaneSettings& resolved) {
  using lanes::LaneMethodId;
  using lanes::MethodLanes;
  const double h = choice.h;
  if (choice.integrator == "si_dla") {
    return std::make_unique<MethodLanes<R, SiDlaMethod>>(
        reporting, lanes::make_block(sys, LaneMethodId::kSiDla, resolved, h), resolved.width, h);
  }
  if (choice.integrator == "rk4") {
    return std::make_unique<MethodLanes<R, Rk4Method>>(
        reporting, lanes::make_block(sys, LaneMethodId::kRk4, resolved, h), resolved.width, h);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_lanes(const ChaoticQuartic<Eigen::Dynamic>& sys,
                                                        const IntegratorChoice& choice,
                                                        const LaneSettings& settings) {
  const LaneSettings s = resolve_lane_settings(settings);
  if (s.isa == LaneIsa::kOff) return nullptr;
  if (sys.n() == 2) return method_lanes(sys, ChaoticQuartic<2>(2), choice, s);
  if (sys.n() == 5) return method_lanes(sys, ChaoticQuartic<5>(5), choice, s);
  return nullptr;
}

}  // namespace nhsim

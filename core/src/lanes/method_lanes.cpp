// Lane steppers from the integrators' own code (method_lanes.hpp) for every system type of
// lanes::MethodLaneSystems, and for the chaotic quartic's dynamic-size catalogue type at n = 2
// and 5, stepped as ChaoticQuartic<2> and <5> (n = 3 is the catalogue's ChaoticQuartic<3>).
#include "method_lanes.hpp"

#include "chaotic_quartic_lanes.hpp"
#include "lane_block.hpp"
#include "method_lane_steppers.hpp"
#include "nhsim/integrators/rk4.hpp"
#include "nhsim/integrators/si_dla.hpp"

namespace nhsim {
namespace {

/// Lanes of `choice` on the catalogue's system `reporting`, stepped as `sys`.
template <class R, class S>
std::unique_ptr<LaneStepper> method_lanes(const R& reporting, const S& sys,
                                          const IntegratorChoice& choice,
                                          const LaneSettings& resolved) {
  using lanes::LaneMethodId;
  using lanes::MethodLanes;
  const double h = choice.h;
  if constexpr (lanes::kSiDlaLanes<S>) {
    if (choice.integrator == "si_dla" && lanes::si_dla_lanes_apply(sys)) {
      return std::make_unique<MethodLanes<R, SiDlaMethod>>(
          reporting, lanes::make_block(sys, LaneMethodId::kSiDla, resolved, h), resolved.width, h);
    }
  }
  if constexpr (lanes::kRk4Lanes<S>) {
    if (choice.integrator == "rk4") {
      return std::make_unique<MethodLanes<R, Rk4Method>>(
          reporting, lanes::make_block(sys, LaneMethodId::kRk4, resolved, h), resolved.width, h);
    }
  }
  return nullptr;
}

}  // namespace

template <class S>
std::unique_ptr<LaneStepper> make_method_lanes(const S& sys, const IntegratorChoice& choice,
                                               const LaneSettings& settings) {
  const LaneSettings s = resolve_lane_settings(settings);
  if (s.isa == LaneIsa::kOff) return nullptr;
  return method_lanes(sys, sys, choice, s);
}

/// Compiles make_method_lanes for every system type of `Systems` (a std::tuple).
template <class Systems>
struct MethodLanesUnit;
template <class... Systems>
struct MethodLanesUnit<std::tuple<Systems...>> {
  static void compile() {
    (
        [] {
          // A volatile store keeps the address, hence the definition, in this object.
          std::unique_ptr<LaneStepper> (*volatile factory)(const Systems&, const IntegratorChoice&,
                                                           const LaneSettings&) =
              &make_method_lanes<Systems>;
          (void)factory;
        }(),
        ...);
  }
};

template struct MethodLanesUnit<lanes::MethodLaneSystems>;

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

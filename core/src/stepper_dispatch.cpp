// The definitions behind nhsim/stepper_factory.hpp, instantiated once for every catalogue system
// type. The dispatch calls make_pair_stepper<S, I> for every applicable I; its definition is in
// the generated translation unit of I (core/pairs.cmake), so a pair missing from that list fails
// to link, naming the pair. One translation unit: editing an integrator header recompiles this
// file, not every system's registration.
#include <type_traits>

#include "lanes/chaotic_quartic_lanes.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/chaplygin_sleigh.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/custom_system.hpp"
#include "nhsim/systems/director_body.hpp"
#include "nhsim/systems/four_bar.hpp"
#include "nhsim/systems/gearbox.hpp"
#include "nhsim/systems/gyroscopic_top.hpp"
#include "nhsim/systems/knife_edge.hpp"
#include "nhsim/systems/nonholonomic_particle.hpp"
#include "nhsim/systems/rolling_disk.hpp"
#include "nhsim/systems/snakeboard.hpp"
#include "nhsim/systems/suslov.hpp"
#include "pair_stepper.hpp"

namespace nhsim {

template <class S>
std::unique_ptr<Stepper> make_stepper_for(const S& sys, const IntegratorChoice& choice) {
  std::unique_ptr<Stepper> out;
  std::apply(
      [&](auto... integrators) {
        (
            [&](auto integ) {
              using I = decltype(integ);
              if constexpr (integrator_applies<I, S>) {
                if (!out && choice.integrator == I::kId) {
                  out = make_pair_stepper<S, I>(sys, choice.h, newton_settings<I>(choice));
                }
              }
            }(integrators),
            ...);
      },
      AllIntegrators{});
  return out;
}

/// Instantiates make_stepper_for, integrator_not_applicable and applicable_integrators for the
/// catalogue system type given as the argument.
template <class S>
std::unique_ptr<LaneStepper> make_lane_stepper_for(const S& sys, const IntegratorChoice& choice,
                                                   const LaneSettings& lanes) {
  if constexpr (std::is_same_v<S, ChaoticQuartic<3>>) {
    return make_chaotic_quartic_lanes(sys, choice, lanes);
  } else {
    (void)sys;
    (void)choice;
    (void)lanes;
    return nullptr;
  }
}

#define NHSIM_INSTANTIATE_STEPPER_FACTORY(...)                                                    \
  template std::unique_ptr<Stepper> make_stepper_for<__VA_ARGS__>(const __VA_ARGS__&,             \
                                                                  const IntegratorChoice&);       \
  template std::unique_ptr<LaneStepper> make_lane_stepper_for<__VA_ARGS__>(                       \
      const __VA_ARGS__&, const IntegratorChoice&, const LaneSettings&);                          \
  template std::optional<std::string> integrator_not_applicable<__VA_ARGS__>(const std::string&); \
  template std::vector<std::string> applicable_integrators<__VA_ARGS__>()

NHSIM_INSTANTIATE_STEPPER_FACTORY(ChaoticQuartic<3>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(ChaoticQuartic<Eigen::Dynamic>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(ChaplyginSleigh);
NHSIM_INSTANTIATE_STEPPER_FACTORY(ChaplyginSleighCom);
NHSIM_INSTANTIATE_STEPPER_FACTORY(FourBar);
NHSIM_INSTANTIATE_STEPPER_FACTORY(Gearbox);
NHSIM_INSTANTIATE_STEPPER_FACTORY(GyroscopicTop);
NHSIM_INSTANTIATE_STEPPER_FACTORY(KnifeEdge);
NHSIM_INSTANTIATE_STEPPER_FACTORY(NonholonomicParticle);
NHSIM_INSTANTIATE_STEPPER_FACTORY(NontwistingBody);
NHSIM_INSTANTIATE_STEPPER_FACTORY(RigidBody);
NHSIM_INSTANTIATE_STEPPER_FACTORY(RollingDisk);
NHSIM_INSTANTIATE_STEPPER_FACTORY(Snakeboard);
NHSIM_INSTANTIATE_STEPPER_FACTORY(Suslov);
NHSIM_INSTANTIATE_STEPPER_FACTORY(CustomSystem<3, 1>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(CustomSystem<7, 1>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(CustomSystem<Eigen::Dynamic, Eigen::Dynamic>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(
    CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>);
NHSIM_INSTANTIATE_STEPPER_FACTORY(
    CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>);

}  // namespace nhsim

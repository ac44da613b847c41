// The definitions behind nhsim/stepper_factory.hpp, instantiated once for every system type of
// the registries (CatalogueSystemTypes, CustomSystemTypes). The dispatch calls
// make_pair_stepper<S, I> for every applicable I; its definition is compiled in the generated
// pair unit of I (core/src/pairs.cpp.in), so a pair that no unit compiles fails to link, naming
// the pair. One translation unit: editing an integrator header recompiles this file, not every
// system's registration.
#include <tuple>
#include <type_traits>

#include "lanes/chaotic_quartic_lanes.hpp"
#include "lanes/lane_block.hpp"
#include "lanes/method_lane_steppers.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/custom_system.hpp"
#include "nhsim/systems/registry.hpp"
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

template <class S>
std::unique_ptr<LaneStepper> make_lane_stepper_for(const S& sys, const IntegratorChoice& choice,
                                                   const LaneSettings& lanes) {
  if constexpr (std::is_same_v<S, ChaoticQuartic<3>> ||
                std::is_same_v<S, ChaoticQuartic<Eigen::Dynamic>>) {
    return make_chaotic_quartic_lanes(sys, choice, lanes);
  } else if constexpr (lanes::kHasMethodLanes<S>) {
    return make_method_lanes(sys, choice, lanes);
  } else {
    (void)sys;
    (void)choice;
    (void)lanes;
    return nullptr;
  }
}

/// Compiles make_stepper_for, make_lane_stepper_for, integrator_not_applicable and
/// applicable_integrators for every system type of `Systems` (a std::tuple): the models
/// (ModelImpl<S>, core/src/systems/) call them. Explicitly instantiated below.
template <class Systems>
struct DispatchUnit;
template <class... Systems>
struct DispatchUnit<std::tuple<Systems...>> {
  static void compile() { (compile_for<Systems>(), ...); }

 private:
  template <class S>
  static void compile_for() {
    // Volatile stores keep the addresses, hence the definitions, in this object.
    std::unique_ptr<Stepper> (*volatile stepper)(const S&, const IntegratorChoice&) =
        &make_stepper_for<S>;
    std::unique_ptr<LaneStepper> (*volatile lanes)(const S&, const IntegratorChoice&,
                                                   const LaneSettings&) = &make_lane_stepper_for<S>;
    std::optional<std::string> (*volatile why)(const std::string&) = &integrator_not_applicable<S>;
    std::vector<std::string> (*volatile ids)() = &applicable_integrators<S>;
    (void)stepper;
    (void)lanes;
    (void)why;
    (void)ids;
  }
};

template struct DispatchUnit<CatalogueSystemTypes>;
template struct DispatchUnit<CustomSystemTypes>;

}  // namespace nhsim

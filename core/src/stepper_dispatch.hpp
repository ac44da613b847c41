// Internal: the definitions behind nhsim/stepper_factory.hpp. Each core/src/systems/<system>.cpp
// includes this and instantiates them for its system types with
// NHSIM_INSTANTIATE_STEPPER_FACTORY(Type). The dispatch calls make_pair_stepper<S, I> for every
// applicable I; its definition is in the pair's own translation unit, so a pair missing from
// core/pairs.cmake fails to link, naming the pair.
#pragma once

#include "nhsim/integrators/registry.hpp"
#include "nhsim/stepper_factory.hpp"
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

}  // namespace nhsim

/// Instantiates make_stepper_for, integrator_not_applicable and applicable_integrators for the
/// catalogue system type given as the argument; used inside namespace nhsim.
#define NHSIM_INSTANTIATE_STEPPER_FACTORY(...)                                                    \
  template std::unique_ptr<Stepper> make_stepper_for<__VA_ARGS__>(const __VA_ARGS__&,             \
                                                                  const IntegratorChoice&);       \
  template std::optional<std::string> integrator_not_applicable<__VA_ARGS__>(const std::string&); \
  template std::vector<std::string> applicable_integrators<__VA_ARGS__>()

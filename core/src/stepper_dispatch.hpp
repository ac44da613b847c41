// Internal: the definitions behind nhsim/stepper_factory.hpp. Each core/src/systems/<system>.cpp
// includes this and instantiates them for its system types with
// NHSIM_INSTANTIATE_STEPPER_FACTORY(Type). The dispatch calls make_pair_stepper<S, I> for every
// applicable I; its definition is in the generated translation unit of I, so a pair missing from
// core/pairs.cmake fails to link, naming the pair.
#pragma once

#include <map>
#include <utility>

#include "nhsim/integrators/registry.hpp"
#include "nhsim/model.hpp"
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

/// The catalogue entry of system type S: `info` with the integrators that apply to S, the model
/// factory `make`, and S's applicability rule (integrator_not_applicable<S>).
template <class S>
SystemEntry catalogue_entry(
    SystemInfo info, std::unique_ptr<SystemModel> (*make)(const std::map<std::string, double>&)) {
  info.integrators = applicable_integrators<S>();
  return SystemEntry{std::move(info), make,
                     [](const std::string& id) { return integrator_not_applicable<S>(id); }};
}

}  // namespace nhsim

/// Instantiates make_stepper_for, integrator_not_applicable and applicable_integrators for the
/// catalogue system type given as the argument; used inside namespace nhsim.
#define NHSIM_INSTANTIATE_STEPPER_FACTORY(...)                                                    \
  template std::unique_ptr<Stepper> make_stepper_for<__VA_ARGS__>(const __VA_ARGS__&,             \
                                                                  const IntegratorChoice&);       \
  template std::optional<std::string> integrator_not_applicable<__VA_ARGS__>(const std::string&); \
  template std::vector<std::string> applicable_integrators<__VA_ARGS__>()

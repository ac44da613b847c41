// Internal: the stepper of one (system type S, integrator I) pair. Declared here, defined in
// pair_stepper_impl.hpp and compiled in the generated translation unit of its integrator
// (core/src/pairs.cpp.in), so that each pair is compiled exactly once.
#pragma once

#include <memory>
#include <tuple>

#include "nhsim/controls.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// StepperImpl<S, I::Method<S>> with step h and Newton settings ns. Precondition: I applies to
/// S (integrator_applies<I, S>), h > 0.
template <class S, class I>
std::unique_ptr<Stepper> make_pair_stepper(const S& sys, double h, const NewtonSettings& ns);

/// The pairs of one generated pair unit: make_pair_stepper<S, I> for every system type S of
/// `Systems` (a std::tuple) and every integrator I of `Integrators` that applies to S. The unit
/// explicitly instantiates PairUnit, whose compile() names each pair's factory, so the unit
/// compiles each of them (and only it does: scripts/check-pair-instantiations).
template <class Systems, class... Integrators>
struct PairUnit;

template <class... Systems, class... Integrators>
struct PairUnit<std::tuple<Systems...>, Integrators...> {
  /// The number of pairs of this unit.
  static int compile() { return (0 + ... + compile_integrator<Integrators>()); }

 private:
  template <class I>
  static int compile_integrator() {
    return (0 + ... + compile_pair<Systems, I>());
  }
  template <class S, class I>
  static int compile_pair() {
    if constexpr (integrator_applies<I, S>) {
      // A volatile store keeps the address, hence the factory's definition, in this object.
      std::unique_ptr<Stepper> (*volatile factory)(const S&, double, const NewtonSettings&) =
          &make_pair_stepper<S, I>;
      (void)factory;
      return 1;
    } else {
      return 0;
    }
  }
};

}  // namespace nhsim

// Internal: the definition of make_pair_stepper, included only by the generated pair
// translation units (core/src/pairs.cpp.in).
#pragma once

#include "nhsim/controls.hpp"
#include "pair_stepper.hpp"

namespace nhsim {

template <class S, class I>
std::unique_ptr<Stepper> make_pair_stepper(const S& sys, double h, const NewtonSettings& ns) {
  static_assert(integrator_applies<I, S>, "a pair whose integrator does not apply to the system");
  return std::make_unique<StepperImpl<S, typename I::template Method<S>>>(sys, h, ns);
}

}  // namespace nhsim

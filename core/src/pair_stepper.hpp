// Internal: the stepper of one (system type S, integrator I) pair. Declared here, defined in
// pair_stepper_impl.hpp and explicitly instantiated in the generated translation unit of its
// integrator (core/pairs.cmake), so that each pair is compiled exactly once.
#pragma once

#include <memory>

#include "nhsim/stepper.hpp"

namespace nhsim {

/// StepperImpl<S, I::Method<S>> with step h and Newton settings ns. Precondition: I applies to
/// S (integrator_applies<I, S>), h > 0.
template <class S, class I>
std::unique_ptr<Stepper> make_pair_stepper(const S& sys, double h, const NewtonSettings& ns);

}  // namespace nhsim

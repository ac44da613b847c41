// Internal: the stand-in for pair_stepper_impl.hpp in the fuzz build (-DNHSIM_FUZZ=ON,
// core/CMakeLists.txt). The fuzz targets check specs (validate, estimate_cost) and never make a
// stepper, so every pair is a stub that aborts: a spec path that reaches one is a finding.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "nhsim/controls.hpp"
#include "pair_stepper.hpp"

namespace nhsim {

template <class S, class I>
std::unique_ptr<Stepper> make_pair_stepper(const S& /*sys*/, double /*h*/,
                                           const NewtonSettings& /*ns*/) {
  static_assert(integrator_applies<I, S>, "a pair whose integrator does not apply to the system");
  std::fprintf(stderr, "nhsim: a fuzz build (NHSIM_FUZZ) has no steppers; asked for %s\n", I::kId);
  std::abort();
}

}  // namespace nhsim

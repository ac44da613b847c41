// What determines the bits of a partial result besides the spec: the build of nhsim and the
// results of its elementary functions. Those come from SLEEF (nhsim/dmath.hpp) and do not depend
// on the CPU; glibc's libm did (its FMA/AVX2 code paths round differently on some arguments:
// with them disabled, 4 of 200 energy-shell states and 32 % of the variance experiment's values
// differed). Another SLEEF, compiler or nhsim version may still change bits:
// partial results carry this fingerprint, and a merge refuses parts whose fingerprints differ.
#pragma once

#include <string>

namespace nhsim::wire {

/// "nhsim VERSION COMPILER; math HEX": the nhsim version and compiler of this build, and the
/// first 16 hex digits of the SHA-256 of the bits of nhsim's sin, cos, exp, log, atan2 and pow
/// (nhsim/dmath.hpp) on 18 arguments that are hard to round (glibc's code paths differ there).
/// Computed once; the same in every process of one build on one machine.
const std::string& bits_fingerprint();

}  // namespace nhsim::wire

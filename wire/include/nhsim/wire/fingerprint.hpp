// What determines the bits of a partial result besides the spec: the build of nhsim and the
// results of the math library on this machine. glibc picks its libm code paths by CPU (FMA, AVX2),
// and on some arguments they round differently: with those paths disabled, 4 of 200
// energy-shell states and 32 % of the variance experiment's values differ (issue 49 item 19).
// Partial results carry this fingerprint, and a merge refuses parts whose fingerprints differ.
#pragma once

#include <string>

namespace nhsim::wire {

/// "nhsim VERSION COMPILER; libm HEX": the nhsim version and compiler of this build, and the
/// first 16 hex digits of the SHA-256 of the bits of sin, cos, exp, log, atan2 and pow on 18
/// arguments on which glibc's code paths (FMA/AVX2 or not) were found to round differently.
/// Computed once; the same in every process of one build on one machine.
const std::string& bits_fingerprint();

}  // namespace nhsim::wire

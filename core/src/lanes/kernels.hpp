// Internal: the lane kernels of each instruction set (kernels_<isa>.cpp), as tables of functions
// by lane width. Declarations only: this header is included by the kernels' own translation
// units, compiled with their instruction set's flags, and by the library's.
#pragma once

#include <cstdint>

namespace nhsim::lanes {

/// si_dla on the chaotic quartic system (n = 3): k steps of size h of W lanes; q, p [7][W].
using SiDlaKernel = void (*)(double* q, double* p, std::int64_t k, double h);
/// rk4 on its reduced ODE: k steps of size h of W lanes; zeta [13][W].
using Rk4Kernel = void (*)(double* zeta, std::int64_t k, double h);

/// The kernels of one instruction set, [0], [1], [2] for W = 2, 4, 8.
struct ChaoticQuarticKernels {
  SiDlaKernel si_dla[3];
  Rk4Kernel rk4[3];
};

/// Index of width W (2, 4, 8) in the tables.
constexpr int width_index(int w) { return w == 2 ? 0 : w == 4 ? 1 : 2; }

extern const ChaoticQuarticKernels kChaoticQuarticBaseline;
#if defined(__x86_64__)
extern const ChaoticQuarticKernels kChaoticQuarticAvx2;
extern const ChaoticQuarticKernels kChaoticQuarticAvx512;
#endif

}  // namespace nhsim::lanes

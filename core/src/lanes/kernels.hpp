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

/// The state of W gonzalez lanes, structure of arrays (entry (row, lane) at row W + lane).
struct GonzalezLaneBlock {
  double* zeta;           ///< [13][W]
  double* increments;     ///< [3 * 13][W]: the last three increments, newest first
  const double* inverse;  ///< [13 * 13][W]: each lane's J^-1, (i, j) at row 13 i + j
  double* h0;             ///< [W]: H(zeta)
  double* history;        ///< [W]: how many increments are valid (0 to 3)
};
/// Which lanes a gonzalez step moved (bit l = lane l).
struct GonzalezStepOutcome {
  unsigned ok = 0;           ///< stepped
  unsigned refresh = 0;      ///< of ok: the next step needs a fresh factorisation
  unsigned handed_back = 0;  ///< not stepped: for the scalar method
};
/// gonzalez on the chaotic quartic system: one step of size h of the lanes in `lanes` (bits).
using GonzalezKernel = void (*)(const GonzalezLaneBlock& block, unsigned lanes, double h,
                                double tol, int max_iter, GonzalezStepOutcome& out);

/// The kernels of one instruction set, [0], [1], [2] for W = 2, 4, 8.
struct ChaoticQuarticKernels {
  SiDlaKernel si_dla[3];
  Rk4Kernel rk4[3];
  GonzalezKernel gonzalez[3];
};

/// Index of width W (2, 4, 8) in the tables.
constexpr int width_index(int w) { return w == 2 ? 0 : w == 4 ? 1 : 2; }

extern const ChaoticQuarticKernels kChaoticQuarticBaseline;
#if defined(__x86_64__)
extern const ChaoticQuarticKernels kChaoticQuarticAvx2;
extern const ChaoticQuarticKernels kChaoticQuarticAvx512;
#endif

}  // namespace nhsim::lanes

// The lane kernels compiled for -mavx512f (core/CMakeLists.txt); used only where the CPU has
// AVX-512F. Nothing but the kernels is compiled here (kernel_table.hpp).
#include "kernels.hpp"
#if defined(__x86_64__)
#include "kernel_table.hpp"

namespace nhsim::lanes {

constinit const ChaoticQuarticKernels kChaoticQuarticAvx512 = chaotic_quartic_kernel_table();

}  // namespace nhsim::lanes
#endif

// The lane kernels compiled for -mavx2 (core/CMakeLists.txt); used only where the CPU has AVX2.
// Nothing but the kernels is compiled here (kernel_table.hpp).
#include "kernels.hpp"
#if defined(__x86_64__)
#include "kernel_table.hpp"

namespace nhsim::lanes {

constinit const ChaoticQuarticKernels kChaoticQuarticAvx2 = chaotic_quartic_kernel_table();

}  // namespace nhsim::lanes
#endif

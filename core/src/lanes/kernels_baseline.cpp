// The lane kernels compiled for the build's own target (SSE2 on x86-64).
// Nothing but the kernels is compiled here (kernel_table.hpp).
#include "kernel_table.hpp"
#include "kernels.hpp"

namespace nhsim::lanes {

constinit const ChaoticQuarticKernels kChaoticQuarticBaseline = chaotic_quartic_kernel_table();

}  // namespace nhsim::lanes

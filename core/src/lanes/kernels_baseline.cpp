// The lane kernels compiled for the build's own target (SSE2 on x86-64).
// Nothing but the kernels is compiled here (chaotic_quartic_kernels.hpp,
// chaotic_quartic_gonzalez_kernel.hpp).
#include "chaotic_quartic_gonzalez_kernel.hpp"
#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"

namespace nhsim::lanes {

const ChaoticQuarticKernels kChaoticQuarticBaseline = {
    {&si_dla_steps<2>, &si_dla_steps<4>, &si_dla_steps<8>},
    {&rk4_steps<2>, &rk4_steps<4>, &rk4_steps<8>},
    {&gonzalez_step<2>, &gonzalez_step<4>, &gonzalez_step<8>},
};

}  // namespace nhsim::lanes

// The lane kernels compiled for the build's own target (SSE2 on x86-64).
// Nothing but the kernels is compiled here (chaotic_quartic_kernels.hpp,
// chaotic_quartic_discrete_gradient_kernel.hpp).
#include "chaotic_quartic_discrete_gradient_kernel.hpp"
#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"

namespace nhsim::lanes {

const ChaoticQuarticKernels kChaoticQuarticBaseline = {
    {&si_dla_steps<2>, &si_dla_steps<4>, &si_dla_steps<8>},
    {&rk4_steps<2>, &rk4_steps<4>, &rk4_steps<8>},
    {&discrete_gradient_step<2, GonzalezLaneGradient>,
     &discrete_gradient_step<4, GonzalezLaneGradient>,
     &discrete_gradient_step<8, GonzalezLaneGradient>},
    {&discrete_gradient_step<2, AvfLaneGradient>, &discrete_gradient_step<4, AvfLaneGradient>,
     &discrete_gradient_step<8, AvfLaneGradient>},
    {&discrete_gradient_step<2, MidpointLaneGradient>,
     &discrete_gradient_step<4, MidpointLaneGradient>,
     &discrete_gradient_step<8, MidpointLaneGradient>},
    {&discrete_gradient_step<2, ItohAbeLaneGradient>,
     &discrete_gradient_step<4, ItohAbeLaneGradient>,
     &discrete_gradient_step<8, ItohAbeLaneGradient>},
};

}  // namespace nhsim::lanes

// Internal: the table of every lane kernel, as compiled in the translation unit that includes
// this (kernels_<isa>.cpp, one per instruction set). The functions have internal linkage, so each
// unit's table points at its own instruction set's code.
#pragma once

#include "chaotic_quartic_avf_f_kernel.hpp"
#include "chaotic_quartic_discrete_gradient_kernel.hpp"
#include "chaotic_quartic_dla_kernel.hpp"
#include "chaotic_quartic_gonzalez_f_kernel.hpp"
#include "chaotic_quartic_i_dla_kernel.hpp"
#include "chaotic_quartic_kernels.hpp"
#include "chaotic_quartic_spark2_kernel.hpp"
#include "kernels.hpp"

namespace {

/// The kernels of W = 2, 4, 8 of one discrete gradient.
template <class Gradient>
constexpr void fill(nhsim::lanes::DiscreteGradientKernel (&table)[3]) {
  table[0] = &discrete_gradient_step<2, Gradient>;
  table[1] = &discrete_gradient_step<4, Gradient>;
  table[2] = &discrete_gradient_step<8, Gradient>;
}

/// This translation unit's kernels.
constexpr nhsim::lanes::ChaoticQuarticKernels chaotic_quartic_kernel_table() {
  nhsim::lanes::ChaoticQuarticKernels k{};
  k.rk2[0] = &rk2_steps<2>;
  k.rk2[1] = &rk2_steps<4>;
  k.rk2[2] = &rk2_steps<8>;
  k.nh_rattle[0] = &nh_rattle_steps<2>;
  k.nh_rattle[1] = &nh_rattle_steps<4>;
  k.nh_rattle[2] = &nh_rattle_steps<8>;
  k.nh_rattle_projected[0] = &nh_rattle_projected_steps<2>;
  k.nh_rattle_projected[1] = &nh_rattle_projected_steps<4>;
  k.nh_rattle_projected[2] = &nh_rattle_projected_steps<8>;
  fill<GonzalezLaneGradient>(k.gonzalez);
  fill<AvfLaneGradient>(k.avf);
  fill<MidpointLaneGradient>(k.midpoint);
  fill<ItohAbeLaneGradient>(k.itoh_abe);
  k.i_dla[0] = &i_dla_step<2>;
  k.i_dla[1] = &i_dla_step<4>;
  k.i_dla[2] = &i_dla_step<8>;
  k.spark2[0] = &spark2_step<2>;
  k.spark2[1] = &spark2_step<4>;
  k.spark2[2] = &spark2_step<8>;
  k.dla[0] = &dla_step<2>;
  k.dla[1] = &dla_step<4>;
  k.dla[2] = &dla_step<8>;
  k.gonzalez_f[0] = &gonzalez_f_step<2>;
  k.gonzalez_f[1] = &gonzalez_f_step<4>;
  k.gonzalez_f[2] = &gonzalez_f_step<8>;
  k.avf_f[0] = &avf_f_step<2>;
  k.avf_f[1] = &avf_f_step<4>;
  k.avf_f[2] = &avf_f_step<8>;
  return k;
}

}  // namespace

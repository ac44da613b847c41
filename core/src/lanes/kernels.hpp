// Internal: the lane kernels of each instruction set (kernels_<isa>.cpp), as tables of functions
// by lane width. Declarations only: this header is included by the kernels' own translation
// units, compiled with their instruction set's flags, and by the library's.
#pragma once

#include <cstdint>

namespace nhsim::lanes {

/// rk2 on the chaotic quartic system (n = 3), a method whose state is the canonical (q, p) alone:
/// k steps of size h of W lanes; q, p [7][W].
using CanonicalKernel = void (*)(double* q, double* p, std::int64_t k, double h);
/// nh_rattle on the chaotic quartic system (n = 3): k steps of size h of W lanes; q, p [7][W] and
/// lambda [W], the multiplier of the last step.
using NhRattleKernel = void (*)(double* q, double* p, double* lambda, std::int64_t k, double h);
/// nh_rattle_projected on the chaotic quartic system (n = 3): k steps of size h of W lanes;
/// q, p_half [7][W] (p_k-1/2, or p_0 before a lane's first step) and stepped [W] (0 before it).
using NhRattleProjectedKernel = void (*)(double* q, double* p_half, double* stepped, std::int64_t k,
                                         double h);

/// The state of W lanes of a discrete gradient method (gonzalez, avf, midpoint, itoh_abe),
/// structure of arrays
/// (entry (row, lane) at row W + lane).
struct DiscreteGradientLaneBlock {
  double* zeta;           ///< [13][W]
  double* increments;     ///< [3 * 13][W]: the last three increments, newest first
  const double* inverse;  ///< [13 * 13][W]: each lane's J^-1, (i, j) at row 13 i + j
  double* h0;             ///< [W]: H(zeta)
  double* history;        ///< [W]: how many increments are valid (0 to 3)
};
/// Which lanes an implicit method's step moved (bit l = lane l).
struct NewtonStepOutcome {
  unsigned ok = 0;           ///< stepped
  unsigned refresh = 0;      ///< of ok: the next step needs a fresh factorisation
  unsigned handed_back = 0;  ///< not stepped: for the scalar method
};
/// A discrete gradient method on the chaotic quartic system: one step of size h of the lanes in
/// `lanes` (bits), with the Newton tolerance and iteration cap of the choice.
using DiscreteGradientKernel = void (*)(const DiscreteGradientLaneBlock& block, unsigned lanes,
                                        double h, double tol, int max_iter, NewtonStepOutcome& out);

/// The state of W lanes of a Newton-based method on the canonical state (i_dla: NX = 8 unknowns
/// (dq, lambda); spark2: NX = 2, (Lambda_1, Lambda_2); gonzalez_f: NX = 15, (q', p', h lambda);
/// avf_f: NX = 15, (dq, dp, h lambda)), structure of arrays (entry (row, lane) at row W + lane).
struct CanonicalNewtonLaneBlock {
  double* q;          ///< [7][W]
  double* p;          ///< [7][W]
  double* solutions;  ///< [3 * NX][W]: the last three Newton solutions, newest first
  double* inverse;    ///< [NX * NX][W]: each lane's J^-1, (i, j) at row NX i + j
  double* history;    ///< [W]: how many solutions are valid (0 to 3)
};
/// i_dla, spark2, gonzalez_f or avf_f on the chaotic quartic system: one step of size h of the
/// lanes in `lanes` (bits), those in `factorised` starting from their stored inverse, the others
/// from a fresh one (which the kernel stores), with the Newton tolerance and iteration cap of the
/// choice.
using CanonicalNewtonKernel = void (*)(const CanonicalNewtonLaneBlock& block, unsigned lanes,
                                       unsigned factorised, double h, double tol, int max_iter,
                                       NewtonStepOutcome& out);

/// The state of W lanes of dla, a momentum-matching method (NX = 8 unknowns (q_{k+1}, lambda)),
/// structure of arrays (entry (row, lane) at row W + lane).
struct MomentumMatchingLaneBlock {
  double* q;              ///< [7][W]: q_k
  double* p;              ///< [7][W]: p_k
  double* q_previous;     ///< [7][W]: q_{k-1}, where have_previous
  double* lambda;         ///< [W]: the last step's multiplier (0 before the first)
  double* have_previous;  ///< [W]: 1 once a lane has stepped since set_state, else 0
  double* inverse;        ///< [8 * 8][W]: each lane's J^-1, (i, j) at row 8 i + j
};
/// dla on the chaotic quartic system: one step as a CanonicalNewtonKernel's.
using MomentumMatchingKernel = void (*)(const MomentumMatchingLaneBlock& block, unsigned lanes,
                                        unsigned factorised, double h, double tol, int max_iter,
                                        NewtonStepOutcome& out);

/// AvfGradient's Gauss-Legendre nodes and weights on [0, 1], also ItohAbeGradient's
/// (nhsim/integrators/avf.hpp, which the
/// kernels' translation units do not include; chaotic_quartic_discrete_gradient_lanes.cpp checks
/// that they are the same).
inline constexpr double kAvfX[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                    0.9602898564975363};
inline constexpr double kAvfW[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                    0.1012285362903763};
/// ItohAbeGradient::kQuotientThreshold (nhsim/integrators/itoh_abe.hpp; the lanes' unit checks
/// that they are the same): the difference quotient where |d| >= this * max(1, |zeta_i|), else the
/// Gauss-Legendre mean.
inline constexpr double kItohAbeQuotientThreshold = 0.1;

/// The kernels of one instruction set, [0], [1], [2] for W = 2, 4, 8.
struct ChaoticQuarticKernels {
  CanonicalKernel rk2[3];
  NhRattleKernel nh_rattle[3];
  NhRattleProjectedKernel nh_rattle_projected[3];
  DiscreteGradientKernel gonzalez[3];
  DiscreteGradientKernel avf[3];
  DiscreteGradientKernel midpoint[3];
  DiscreteGradientKernel itoh_abe[3];
  CanonicalNewtonKernel i_dla[3];
  CanonicalNewtonKernel spark2[3];
  MomentumMatchingKernel dla[3];
  CanonicalNewtonKernel gonzalez_f[3];
  CanonicalNewtonKernel avf_f[3];
};

/// Index of width W (2, 4, 8) in the tables.
constexpr int width_index(int w) { return w == 2 ? 0 : w == 4 ? 1 : 2; }

extern const ChaoticQuarticKernels kChaoticQuarticBaseline;
#if defined(__x86_64__)
extern const ChaoticQuarticKernels kChaoticQuarticAvx2;
extern const ChaoticQuarticKernels kChaoticQuarticAvx512;
#endif

}  // namespace nhsim::lanes

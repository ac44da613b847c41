// Internal: W lanes of one integrator's own code over Lane<W, Isa> (nhsim/lane.hpp), behind an
// interface the library's baseline code holds (method_lanes.hpp). The implementation
// (method_block.hpp) is compiled once per instruction set, in method_kernels_<isa>.cpp; a lane's
// state crosses this interface as the method's state() flattened: its vectors one after another.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "nhsim/integrators/si_dla.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/chaplygin_sleigh.hpp"
#include "nhsim/systems/custom_system.hpp"
#include "nhsim/systems/gearbox.hpp"
#include "nhsim/systems/knife_edge.hpp"
#include "nhsim/systems/nonholonomic_particle.hpp"
#include "nhsim/systems/rolling_disk.hpp"
#include "nhsim/systems/suslov.hpp"

// Every unit lays out the system types the same way (core/CMakeLists.txt).
static_assert(EIGEN_MAX_STATIC_ALIGN_BYTES <= 16, "Eigen types of another layout than baseline's");

namespace nhsim::lanes {

/// The integrators whose own code steps lanes.
enum class LaneMethodId { kSiDla, kRk4 };

/// The system types with lanes from the integrators' own code (the chaotic quartic's n = 2 and 5
/// step the catalogue's dynamic-size system, n = 3 its own type), the user-defined systems with a
/// constant mass matrix among them: both fixed sizes and the dynamic one.
using MethodLaneSystems =
    std::tuple<ChaoticQuartic<2>, ChaoticQuartic<3>, ChaoticQuartic<5>, NonholonomicParticle,
               KnifeEdge, Gearbox, ChaplyginSleigh, Suslov, RollingDisk, CustomSystem<3, 1>,
               CustomSystem<7, 1>, CustomSystem<Eigen::Dynamic, Eigen::Dynamic>>;

template <class S, class Systems>
struct InTuple;
template <class S, class... Systems>
struct InTuple<S, std::tuple<Systems...>>
    : std::bool_constant<(std::is_same_v<S, Systems> || ...)> {};
template <class S>
inline constexpr bool kHasMethodLanes = InTuple<S, MethodLaneSystems>::value;

/// si_dla in lanes: its steps take no branch on the state where one linear solve is exact
/// (kSiDlaConstraintAffine), of one constraint, with M = I (so that no sum runs in Eigen's own,
/// packet, order on the scalar path); or for a user-defined system, whose si_dla sums in index
/// order (SiDlaOrderedProducts), where si_dla_lanes_apply() holds.
template <class S>
consteval bool si_dla_lanes() {
  return (S::NC == 1 && S::kIdentityMass && kSiDlaConstraintAffine<S>) || SiDlaOrderedProducts<S>;
}
template <class S>
inline constexpr bool kSiDlaLanes = si_dla_lanes<S>();

/// Whether si_dla's lanes apply to `sys` (kSiDlaLanes<S>): always for a catalogue system; for a
/// user-defined one where, as the static criterion asks of the others, its constraint is one row,
/// affine along the constraint forces, and M is diagonal (M^-1 p sums nothing).
template <class S>
bool si_dla_lanes_apply(const S& sys) {
  if constexpr (SiDlaOrderedProducts<S>) {
    return sys.nc() == 1 && sys.si_dla_constraint_affine() && sys.diagonal_mass();
  } else {
    (void)sys;
    return true;
  }
}
/// rk4 in lanes: on the reduced ODE (Rk4Method), explicit and branch-free.
template <class S>
inline constexpr bool kRk4Lanes = ReducedForm<S>;

class LaneBlock {
 public:
  virtual ~LaneBlock();
  /// Lane `lane`'s state from the flattened state of the scalar method, and back.
  virtual void put(int lane, const double* state) = 0;
  virtual void take(int lane, double* state) const = 0;
  /// k steps of every lane (explicit methods: every step succeeds).
  virtual void advance(std::int64_t k) = 0;
};

/// A new block of `width` (2, 4, 8) lanes of `method` (kSiDlaLanes, kRk4Lanes) with step h on
/// system `sys` (a copy is kept), stepping in instruction set Isa; defined in
/// method_kernels_<isa>.cpp for each system type of MethodLaneSystems.
template <class Isa, class S>
LaneBlock* make_lane_block(const S& sys, LaneMethodId method, int width, double h);

}  // namespace nhsim::lanes

// Internal: W lanes of one integrator's own code over Lane<W, Isa> (nhsim/lane.hpp), behind an
// interface the library's baseline code holds (method_lanes.hpp). The implementation
// (method_block.hpp) is compiled once per instruction set, in method_kernels_<isa>.cpp; a lane's
// state crosses this interface as the method's state() flattened: its vectors one after another.
#pragma once

#include <cstdint>

namespace nhsim::lanes {

/// The integrators whose own code steps lanes.
enum class LaneMethodId { kSiDla, kRk4 };

class LaneBlock {
 public:
  virtual ~LaneBlock();
  /// Lane `lane`'s state from the flattened state of the scalar method, and back.
  virtual void put(int lane, const double* state) = 0;
  virtual void take(int lane, double* state) const = 0;
  /// k steps of every lane (explicit methods: every step succeeds).
  virtual void advance(std::int64_t k) = 0;
};

/// A new block of `width` (2, 4, 8) lanes of `method` with step h on system `sys` (a copy is
/// kept), stepping in instruction set Isa; defined in method_kernels_<isa>.cpp for each system
/// type of MethodLaneSystems (method_block.hpp).
template <class Isa, class S>
LaneBlock* make_lane_block(const S& sys, LaneMethodId method, int width, double h);

}  // namespace nhsim::lanes

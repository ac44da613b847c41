// OverLanes<S, W, Isa>: system S with its vectors and matrices over Lane<W, Isa> (nhsim/lane.hpp),
// so that an integrator's Method<OverLanes<S, W, Isa>> is the same code as Method<S>, stepping W
// trajectories at once. The member functions are S's own: templates over the vector types, with
// locals of the vectors' scalar type. A trait of S that is not a member (a variable template
// specialised for S) is forwarded to OverLanes by a constrained specialisation on `typename
// S::System` beside it.
#pragma once

#include <type_traits>

#include "nhsim/lane.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// S's canonical types over Lane<W, Isa>, of S's sizes and capacity: a system of dynamic size
/// must bound it (capacity_nq(), capacity_nc()), so that its lanes are stored inline.
template <class S, int W, class Isa>
struct CanonicalOverLanes : S {
  static_assert(capacity_nq<S>() != Eigen::Dynamic && capacity_nc<S>() != Eigen::Dynamic,
                "lanes need a system of bounded size");
  using System = S;
  using Scalar = Lane<W, Isa>;
  static constexpr int kWidth = W;

  explicit CanonicalOverLanes(const S& sys) : S(sys) {}

  static constexpr int kMaxNQ = capacity_nq<S>();
  static constexpr int kMaxNC = capacity_nc<S>();
  using VecQ = CapacityMatrix<S::NQ, 1, kMaxNQ, 1, Scalar>;
  using VecC = CapacityMatrix<S::NC, 1, kMaxNC, 1, Scalar>;
  using MatCQ = CapacityMatrix<S::NC, S::NQ, kMaxNC, kMaxNQ, Scalar>;
  using MatQ = CapacityMatrix<S::NQ, S::NQ, kMaxNQ, kMaxNQ, Scalar>;
};

/// And its reduced types on D*, for a system with a reduced form.
template <class S, int W, class Isa>
struct ReducedOverLanes : CanonicalOverLanes<S, W, Isa> {
  using CanonicalOverLanes<S, W, Isa>::CanonicalOverLanes;
  using Scalar = Lane<W, Isa>;
  using VecR = CapacityMatrix<S::NR, 1, S::NR, 1, Scalar>;
  using VecZ = CapacityMatrix<S::NZ, 1, S::NZ, 1, Scalar>;
  using MatZ = CapacityMatrix<S::NZ, S::NZ, S::NZ, S::NZ, Scalar>;
};

template <class S, int W, class Isa>
using OverLanes =
    std::conditional_t<ReducedForm<S>, ReducedOverLanes<S, W, Isa>, CanonicalOverLanes<S, W, Isa>>;

}  // namespace nhsim

// Internal: LaneBlock (lane_block.hpp) as Method<OverLanes<S, W, Isa>>, the integrator's own code
// over lanes. Included only by method_kernels_<isa>.cpp, each compiled for its instruction set:
// every function here is instantiated over types that name Isa, so each unit's code is its own
// (tests/core/check-lane-objects checks that the units define no global function without it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "custom/tape_run.hpp"
#include "lane_block.hpp"
#include "lane_math.hpp"
#include "nhsim/integrators/rk4.hpp"
#include "nhsim/integrators/si_dla.hpp"
#include "nhsim/over_lanes.hpp"

namespace nhsim::lanes {

template <class S, template <class> class Method, int W, class Isa>
class MethodBlock final : public LaneBlock {
 public:
  using Sys = OverLanes<S, W, Isa>;

  MethodBlock(const S& sys, double h) : sys_(sys), method_(sys_, h, NewtonSettings{}) {}
  MethodBlock(const MethodBlock&) = delete;  // the method refers to sys_
  MethodBlock& operator=(const MethodBlock&) = delete;

  void put(int lane, const double* state) override {
    std::apply([&](auto&... v) { (put_vector(lane, state, v), ...); }, method_.state());
  }
  void take(int lane, double* state) const override {
    std::apply([&](const auto&... v) { (take_vector(lane, state, v), ...); }, method_.state());
  }
  void advance(std::int64_t k) override {
    if constexpr (requires { method_.advance_by(k); }) {
      method_.advance_by(k);  // the state in registers from step to step
    } else {
      double residual = 0.0;
      for (std::int64_t i = 0; i < k; ++i) method_.step(residual);
    }
  }

 private:
  template <class V>
  static void put_vector(int lane, const double*& state, V& v) {
    for (Eigen::Index j = 0; j < v.size(); ++j) v(j).set(lane, *state++);
  }
  template <class V>
  static void take_vector(int lane, double*& state, const V& v) {
    for (Eigen::Index j = 0; j < v.size(); ++j) *state++ = v(j).get(lane);
  }

  Sys sys_;
  Method<Sys> method_;
};

template <class S, template <class> class Method, class Isa>
LaneBlock* make_block_of(const S& sys, int width, double h) {
  if (width == 2) return new MethodBlock<S, Method, 2, Isa>(sys, h);
  if (width == 4) return new MethodBlock<S, Method, 4, Isa>(sys, h);
  return new MethodBlock<S, Method, 8, Isa>(sys, h);
}

template <class Isa, class S>
LaneBlock* make_lane_block(const S& sys, LaneMethodId method, int width, double h) {
  if constexpr (kSiDlaLanes<S>) {
    if (method == LaneMethodId::kSiDla) return make_block_of<S, SiDlaMethod, Isa>(sys, width, h);
  }
  if constexpr (kRk4Lanes<S>) {
    if (method == LaneMethodId::kRk4) return make_block_of<S, Rk4Method, Isa>(sys, width, h);
  }
  return nullptr;
}

/// Compiles make_lane_block<Isa, S> for every S of Systems (a std::tuple) in the unit that
/// explicitly instantiates it.
template <class Isa, class Systems>
struct LaneBlockUnit;
template <class Isa, class... Systems>
struct LaneBlockUnit<Isa, std::tuple<Systems...>> {
  static void compile() {
    (
        [] {
          // A volatile store keeps the address, hence the definition, in this object.
          LaneBlock* (*volatile factory)(const Systems&, LaneMethodId, int, double) =
              &make_lane_block<Isa, Systems>;
          (void)factory;
        }(),
        ...);
  }
};

}  // namespace nhsim::lanes

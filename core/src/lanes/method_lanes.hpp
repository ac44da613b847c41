// Internal: the lane stepper of a (system, explicit method) pair from the method's own code.
//
// The lanes are Method<OverLanes<S, W, Isa>> (nhsim/over_lanes.hpp), the integrator's scalar code
// instantiated over Lane<W, Isa>: W trajectories per instruction, each lane performing its
// trajectory's scalar operations, so lanes and scalar agree bit for bit by construction. They
// live in a LaneBlock compiled for the chosen instruction set (lane_block.hpp). Each lane is set
// and read through the pair's scalar method Method<R>, whose state (its state(): a tuple of its
// vectors) is copied to and from the lane, by the calls StepperImpl<R, Method<R>> makes: set_state,
// the canonical state, finiteness, energy and residual are the scalar path's own. R is the
// catalogue's system type, S the fixed-size type of the same system that the lanes step (R
// itself, or ChaoticQuartic<2> for ChaoticQuartic<Eigen::Dynamic> at n = 2).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "lane_block.hpp"
#include "nhsim/lane.hpp"
#include "nhsim/lane_settings.hpp"
#include "nhsim/lanes.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim::lanes {

/// make_lane_block in the instruction set of `resolved` (resolve_lane_settings(), not off).
template <class S>
std::unique_ptr<LaneBlock> make_block(const S& sys, LaneMethodId method,
                                      const LaneSettings& resolved, double h) {
#if NHSIM_LANES_AVX512
  if (resolved.isa == LaneIsa::kAvx512) {
    return std::unique_ptr<LaneBlock>(make_lane_block<IsaAvx512>(sys, method, resolved.width, h));
  }
#endif
#if NHSIM_LANES_AVX2
  if (resolved.isa == LaneIsa::kAvx2) {
    return std::unique_ptr<LaneBlock>(make_lane_block<IsaAvx2>(sys, method, resolved.width, h));
  }
#endif
  return std::unique_ptr<LaneBlock>(make_lane_block<IsaBaseline>(sys, method, resolved.width, h));
}

/// `width` lanes of explicit method Method on system R, in `block`. A lane is read as
/// StepperImpl<R, Method<R>> reads its method (nhsim/stepper.hpp), by the same calls.
template <class R, template <class> class Method>
class MethodLanes final : public LaneStepper {
 public:
  using VecQ = typename R::VecQ;

  MethodLanes(const R& sys, std::unique_ptr<LaneBlock> block, int width, double h)
      : sys_(sys),
        method_(sys_, h, NewtonSettings{}),
        block_(std::move(block)),
        width_(width),
        q_(sys.nq()),
        p_(sys.nq()) {
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(sys.nq());
    std::size_t size = 0;
    std::apply([&](const auto&... v) { ((size += static_cast<std::size_t>(v.size())), ...); },
               method_.state());
    state_.resize(size);
    for (int l = 0; l < width_; ++l) set_state(l, zero, zero);
  }
  MethodLanes(const MethodLanes&) = delete;  // method_ refers to sys_
  MethodLanes& operator=(const MethodLanes&) = delete;

  int width() const override { return width_; }
  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    q_ = q;
    p_ = p;
    method_.set_canonical(q_, p_);
    double* out = state_.data();
    std::apply(
        [&](const auto&... v) { ((out = std::copy(v.data(), v.data() + v.size(), out)), ...); },
        method_.state());
    block_->put(lane, state_.data());
  }
  void advance(std::int64_t k) override {
    block_->advance(k);
    last_k_ = k;
  }
  AdvanceResult result(int lane) const override {
    return finite(lane) ? AdvanceResult{StepStatus::kOk, last_k_, 0.0}
                        : AdvanceResult{StepStatus::kNonFinite, 0, 0.0};
  }
  bool finite(int lane) const override { return take(lane).state_finite(); }
  void get_state(int lane, Eigen::VectorXd& q, Eigen::VectorXd& p) const override {
    take(lane).canonical(q_, p_);
    q = q_;
    p = p_;
  }
  double energy(int lane) const override {
    take(lane).canonical(q_, p_);
    return sys_.hamiltonian(q_, p_);
  }
  void energy_and_residual(int lane, double& energy, double& residual) const override {
    take(lane).canonical(q_, p_);
    energy = sys_.hamiltonian(q_, p_);
    residual = sys_.constraint_residual(q_, p_);
  }

 private:
  /// The scalar method holding lane `lane`'s state.
  const Method<R>& take(int lane) const {
    block_->take(lane, state_.data());
    const double* in = state_.data();
    std::apply([&](auto&... v) { ((std::copy(in, in + v.size(), v.data()), in += v.size()), ...); },
               method_.state());
    return method_;
  }

  R sys_;
  mutable Method<R> method_;
  std::unique_ptr<LaneBlock> block_;
  int width_;
  mutable std::vector<double> state_;  // one lane's state, flattened
  mutable VecQ q_, p_;
  std::int64_t last_k_ = 0;
};

}  // namespace nhsim::lanes

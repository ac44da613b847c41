// The lane stepper of dla on the chaotic quartic system (n = 3), the two-step momentum-matching
// method in its one-step canonical form: every step in SIMD, fresh inverses included
// (chaotic_quartic_dla_kernel.hpp), except the damped Newton fallback and failures, which are each
// lane's scalar stepper's (newton_lanes.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "chaotic_quartic_lane_stepper.hpp"
#include "chaotic_quartic_lanes.hpp"
#include "lane_rows.hpp"
#include "newton_lanes.hpp"
#include "nhsim/integrators/dla.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
static_assert(DlaIntegrator::Method<Sys>::NX == 8, "dla's lanes solve for (q_{k+1}, lambda)");

/// Lanes of dla: (q_k, p_k), q_{k-1}, the last lambda and whether a step was taken, as
/// MomentumMatchingMethod keeps them (Method::History); the inverses are NewtonLanes'.
class DlaLanes final : public lanes::NewtonLanes<DlaIntegrator, lanes::CanonicalStateLanes> {
 public:
  using Method = DlaIntegrator::Method<Sys>;

  DlaLanes(const Sys& sys, const IntegratorChoice& choice, int width,
           lanes::MomentumMatchingKernel kernel)
      : NewtonLanes(sys, choice, width, /*kernel_factorises=*/true),
        kernel_(kernel),
        q_previous_(width),
        lambda_(width),
        have_previous_(width),
        k_(static_cast<std::size_t>(width), 0) {}

 private:
  void simd_step(unsigned lanes, unsigned factorised, lanes::NewtonStepOutcome& out) override {
    const lanes::MomentumMatchingLaneBlock block{
        q_.row(0),      p_.row(0), q_previous_.row(0), lambda_.row(0), have_previous_.row(0),
        inverse_.row(0)};
    kernel_(block, lanes, factorised, h_, newton_.tol, newton_.max_iter, out);
    for (int l = 0; l < width(); ++l) k_[index(l)] += (out.ok >> l) & 1U;
  }

  void give_to_scalar(int lane, Method& m) override {
    VecQ q, p;
    canonical(lane, q, p);
    Method::History h;
    q_previous_.take(lane, 0, h.q_previous);
    h.lambda(0) = lambda_.at(0, lane);
    h.have_previous = have_previous_.at(0, lane) != 0.0;
    h.k = k_[index(lane)];
    m.restore(q, p, h);
  }

  void take_from_scalar(int lane, const Method& m) override {
    take_canonical(lane, m);
    const Method::History h = m.history();
    q_previous_.put(lane, 0, h.q_previous);
    lambda_.at(0, lane) = h.lambda(0);
    have_previous_.at(0, lane) = h.have_previous ? 1.0 : 0.0;
    k_[index(lane)] = h.k;
  }

  lanes::MomentumMatchingKernel kernel_;
  lanes::LaneRows<7> q_previous_;
  lanes::LaneRows<1> lambda_, have_previous_;
  std::vector<std::int64_t> k_;  // steps since set_state (the method's t_k = k h; no loads here)
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_dla_lanes(const ChaoticQuartic<3>& sys,
                                                            const IntegratorChoice& choice,
                                                            int width,
                                                            lanes::MomentumMatchingKernel kernel) {
  if (choice.integrator != DlaIntegrator::kId) return nullptr;
  return std::make_unique<DlaLanes>(sys, choice, width, kernel);
}

}  // namespace nhsim

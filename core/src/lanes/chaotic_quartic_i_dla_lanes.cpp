// The lane stepper of i_dla on the chaotic quartic system (n = 3): every step in SIMD, fresh
// inverses included (chaotic_quartic_i_dla_kernel.hpp), except the damped Newton fallback and
// failures, which are each lane's scalar stepper's (newton_lanes.hpp).
#include <memory>

#include "chaotic_quartic_lane_stepper.hpp"
#include "chaotic_quartic_lanes.hpp"
#include "lane_rows.hpp"
#include "newton_lanes.hpp"
#include "nhsim/integrators/i_dla.hpp"
#include "nhsim/integrators/registry.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
using Method = IDlaIntegrator::Method<Sys>;
static_assert(Method::NX == 8, "the i_dla lane kernel solves for (dq, lambda), 7 + 1 unknowns");

/// Lanes of i_dla: (q, p), the last three Newton solutions and how many are valid, and each
/// lane's inverse Jacobian, as IDlaMethod keeps them.
class IDlaLanes final : public lanes::NewtonLanes<Method, lanes::CanonicalStateLanes> {
 public:
  IDlaLanes(const Sys& sys, const IntegratorChoice& choice, int width, lanes::IDlaKernel kernel)
      : NewtonLanes(sys, choice, width, /*kernel_factorises=*/true),
        h_(choice.h),
        newton_(newton_settings<IDlaIntegrator>(choice)),  // as the factory gives the scalar ones
        kernel_(kernel),
        solutions_(width),
        inverse_(width),
        history_(width) {}

 private:
  static constexpr int kNx = Method::NX;

  void simd_step(unsigned lanes, unsigned factorised, lanes::NewtonStepOutcome& out) override {
    const lanes::IDlaLaneBlock block{q_.row(0), p_.row(0), solutions_.row(0), inverse_.row(0),
                                     history_.row(0)};
    kernel_(block, lanes, factorised, h_, newton_.tol, newton_.max_iter, out);
  }

  /// The lane's (q, p), solutions and history (the inverse is the scalar stepper's own).
  void give_to_scalar(int lane, Method& m) override {
    VecQ q, p;
    canonical(lane, q, p);
    Method::History h;
    solutions_.take(lane, 0, h.x1);
    solutions_.take(lane, kNx, h.x2);
    solutions_.take(lane, 2 * kNx, h.x3);
    h.count = static_cast<int>(history_.at(0, lane));
    m.restore(q, p, h);
  }

  void take_from_scalar(int lane, const Method& m) override {
    VecQ q, p;
    m.canonical(q, p);
    q_.put(lane, 0, q);
    p_.put(lane, 0, p);
    const Method::History h = m.history();
    solutions_.put(lane, 0, h.x1);
    solutions_.put(lane, kNx, h.x2);
    solutions_.put(lane, 2 * kNx, h.x3);
    history_.at(0, lane) = h.count;
    if (m.newton().has_factorisation()) {
      const auto& inv = m.newton().inverse();
      for (int i = 0; i < kNx; ++i) {
        for (int j = 0; j < kNx; ++j) inverse_.at(kNx * i + j, lane) = inv(i, j);
      }
    }
  }

  double h_;
  NewtonSettings newton_;
  lanes::IDlaKernel kernel_;
  lanes::LaneRows<3 * kNx> solutions_;
  lanes::LaneRows<kNx * kNx> inverse_;
  lanes::LaneRows<1> history_;
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_i_dla_lanes(const ChaoticQuartic<3>& sys,
                                                              const IntegratorChoice& choice,
                                                              int width, lanes::IDlaKernel kernel) {
  return std::make_unique<IDlaLanes>(sys, choice, width, kernel);
}

}  // namespace nhsim

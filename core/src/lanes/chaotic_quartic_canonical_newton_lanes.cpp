// The lane steppers of i_dla, spark2, gonzalez_f and avf_f on the chaotic quartic system (n = 3),
// the Newton-based methods on the canonical state: every step in SIMD, fresh inverses included
// (chaotic_quartic_i_dla_kernel.hpp, chaotic_quartic_spark2_kernel.hpp,
// chaotic_quartic_gonzalez_f_kernel.hpp, chaotic_quartic_avf_f_kernel.hpp), except the damped
// Newton fallback and failures, which are each lane's scalar stepper's (newton_lanes.hpp).
#include <memory>

#include "chaotic_quartic_lane_stepper.hpp"
#include "chaotic_quartic_lanes.hpp"
#include "lane_rows.hpp"
#include "newton_lanes.hpp"
#include "nhsim/integrators/avf_f.hpp"
#include "nhsim/integrators/gonzalez_f.hpp"
#include "nhsim/integrators/i_dla.hpp"
#include "nhsim/integrators/spark2.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
static_assert(IDlaIntegrator::Method<Sys>::NX == 8, "i_dla's lanes solve for (dq, lambda)");
static_assert(Spark2Integrator::Method<Sys>::NX == 2, "spark2's for (Lambda_1, Lambda_2)");
static_assert(GonzalezFIntegrator::Method<Sys>::NX == 15, "gonzalez_f's for (q', p', h lambda)");
static_assert(AvfFIntegrator::Method<Sys>::NX == 15, "avf_f's for (dq, dp, h lambda)");

/// Lanes of I (IDlaIntegrator, Spark2Integrator, GonzalezFIntegrator or AvfFIntegrator): (q, p) and
/// the last three Newton solutions and how many are valid, as the method keeps them
/// (Method::History); the inverses are NewtonLanes'.
template <class I>
class CanonicalNewtonLanes final : public lanes::NewtonLanes<I, lanes::CanonicalStateLanes> {
 public:
  using Method = typename I::template Method<Sys>;

  CanonicalNewtonLanes(const Sys& sys, const IntegratorChoice& choice, int width,
                       lanes::CanonicalNewtonKernel kernel)
      : lanes::NewtonLanes<I, lanes::CanonicalStateLanes>(sys, choice, width,
                                                          /*kernel_factorises=*/true),
        kernel_(kernel),
        solutions_(width),
        history_(width) {}

 private:
  static constexpr int kNx = lanes::NewtonLanes<I, lanes::CanonicalStateLanes>::kNx;

  void simd_step(unsigned lanes, unsigned factorised, lanes::NewtonStepOutcome& out) override {
    const lanes::CanonicalNewtonLaneBlock block{this->q_.row(0), this->p_.row(0), solutions_.row(0),
                                                this->inverse_.row(0), history_.row(0)};
    kernel_(block, lanes, factorised, this->h_, this->newton_.tol, this->newton_.max_iter, out);
  }

  /// The lane's (q, p), solutions and history.
  void give_to_scalar(int lane, Method& m) override {
    VecQ q, p;
    this->canonical(lane, q, p);
    typename Method::History h;
    solutions_.take(lane, 0, h.x1);
    solutions_.take(lane, kNx, h.x2);
    solutions_.take(lane, 2 * kNx, h.x3);
    h.count = static_cast<int>(history_.at(0, lane));
    m.restore(q, p, h);
  }

  void take_from_scalar(int lane, const Method& m) override {
    this->take_canonical(lane, m);
    const typename Method::History h = m.history();
    solutions_.put(lane, 0, h.x1);
    solutions_.put(lane, kNx, h.x2);
    solutions_.put(lane, 2 * kNx, h.x3);
    history_.at(0, lane) = h.count;
  }

  using VecQ = Sys::VecQ;
  lanes::CanonicalNewtonKernel kernel_;
  lanes::LaneRows<3 * kNx> solutions_;
  lanes::LaneRows<1> history_;
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_canonical_newton_lanes(
    const ChaoticQuartic<3>& sys, const IntegratorChoice& choice, int width,
    lanes::CanonicalNewtonKernel kernel) {
  if (choice.integrator == IDlaIntegrator::kId) {
    return std::make_unique<CanonicalNewtonLanes<IDlaIntegrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == Spark2Integrator::kId) {
    return std::make_unique<CanonicalNewtonLanes<Spark2Integrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == GonzalezFIntegrator::kId) {
    return std::make_unique<CanonicalNewtonLanes<GonzalezFIntegrator>>(sys, choice, width, kernel);
  }
  if (choice.integrator == AvfFIntegrator::kId) {
    return std::make_unique<CanonicalNewtonLanes<AvfFIntegrator>>(sys, choice, width, kernel);
  }
  return nullptr;
}

}  // namespace nhsim

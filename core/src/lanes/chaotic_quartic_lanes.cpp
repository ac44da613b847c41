// Lane steppers of the chaotic quartic system (n = 3): rk2, nh_rattle and nh_rattle_projected
// (nhsim/lanes.hpp), and the factory of all its lane steppers (si_dla's and rk4's are the
// integrators' own code, method_lanes.hpp; the implicit methods' are in
// chaotic_quartic_discrete_gradient_lanes.cpp, chaotic_quartic_canonical_newton_lanes.cpp and
// chaotic_quartic_dla_lanes.cpp). The state lives here, in structure of arrays; the steps are the
// kernels of the chosen instruction set (kernels_<isa>.cpp); what a lane reports is read as
// chaotic_quartic_lane_stepper.hpp says.
#include "chaotic_quartic_lanes.hpp"

#include "chaotic_quartic_lane_stepper.hpp"
#include "kernels.hpp"
#include "lane_rows.hpp"
#include "method_lane_steppers.hpp"
#include "nhsim/controls.hpp"
#include "nhsim/integrators/nh_common.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
using VecQ = Sys::VecQ;
using lanes::LaneRows;

const lanes::ChaoticQuarticKernels& kernel_table(LaneIsa isa) {
#if NHSIM_LANES_AVX512
  if (isa == LaneIsa::kAvx512) return lanes::kChaoticQuarticAvx512;
#endif
#if NHSIM_LANES_AVX2
  if (isa == LaneIsa::kAvx2) return lanes::kChaoticQuarticAvx2;
#endif
  (void)isa;
  return lanes::kChaoticQuarticBaseline;
}

/// An explicit method's advance(k): every step succeeds; Stepper::advance's check of the state
/// at the end.
AdvanceResult explicit_result(bool finite, std::int64_t k) {
  return finite ? AdvanceResult{StepStatus::kOk, k, 0.0}
                : AdvanceResult{StepStatus::kNonFinite, 0, 0.0};
}

/// An explicit method on the canonical state (q, p), as SiDlaMethod, Rk2Method and NhRattleMethod
/// keep it.
class ExplicitCanonicalLanes : public lanes::CanonicalStateLanes {
 public:
  ExplicitCanonicalLanes(const Sys& sys, double h, int width)
      : CanonicalStateLanes(sys, width), h_(h) {}
  AdvanceResult result(int lane) const override { return explicit_result(finite(lane), last_k_); }

 protected:
  double h_;
  std::int64_t last_k_ = 0;
};

/// rk2: the state is (q, p) alone.
class CanonicalLanes final : public ExplicitCanonicalLanes {
 public:
  CanonicalLanes(const Sys& sys, double h, int width, lanes::CanonicalKernel kernel)
      : ExplicitCanonicalLanes(sys, h, width), kernel_(kernel) {}
  void advance(std::int64_t k) override {
    kernel_(q_.row(0), p_.row(0), k, h_);
    last_k_ = k;
  }

 private:
  lanes::CanonicalKernel kernel_;
};

/// nh_rattle: (q, p) and the multiplier lambda_k the last step found, 0 after set_state
/// (NhRattleMethod's state, [Kobilarov2010] Remark 1).
class NhRattleLanes final : public ExplicitCanonicalLanes {
 public:
  NhRattleLanes(const Sys& sys, double h, int width, lanes::NhRattleKernel kernel)
      : ExplicitCanonicalLanes(sys, h, width), kernel_(kernel), lambda_(width) {}
  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    ExplicitCanonicalLanes::set_state(lane, q, p);
    lambda_.at(0, lane) = 0.0;
  }
  void advance(std::int64_t k) override {
    kernel_(q_.row(0), p_.row(0), lambda_.row(0), k, h_);
    last_k_ = k;
  }

 private:
  lanes::NhRattleKernel kernel_;
  LaneRows<1> lambda_;
};

/// nh_rattle_projected: q_k and p_k-1/2 (p_0 before a lane's first step), and whether the lane
/// has stepped since set_state, as NhRattleProjectedMethod keeps them. A lane's canonical p_k is
/// eq. (15b), by the scalar method's own functions (f does not depend on t here: no controls).
class NhRattleProjectedLanes final : public lanes::ChaoticQuarticLaneStepper {
 public:
  NhRattleProjectedLanes(const Sys& sys, double h, int width, lanes::NhRattleProjectedKernel kernel)
      : ChaoticQuarticLaneStepper(sys, width),
        h_(h),
        kernel_(kernel),
        q_(width),
        p_half_(width),
        stepped_(width),
        w_(sys_) {}
  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    q_.put(lane, 0, VecQ(q));
    p_half_.put(lane, 0, VecQ(p));
    stepped_.at(0, lane) = 0.0;
  }
  void advance(std::int64_t k) override {
    kernel_(q_.row(0), p_half_.row(0), stepped_.row(0), k, h_);
    last_k_ = k;
  }
  AdvanceResult result(int lane) const override { return explicit_result(finite(lane), last_k_); }
  bool finite(int lane) const override {
    VecQ q, p_half;
    q_.take(lane, 0, q);
    p_half_.take(lane, 0, p_half);
    return all_finite(q) && all_finite(p_half);  // NhRattleProjectedMethod::state_finite
  }

 private:
  void canonical(int lane, VecQ& q, VecQ& p) const override {
    q_.take(lane, 0, q);
    p_half_.take(lane, 0, p);
    if (stepped_.at(0, lane) == 0.0) return;
    VecQ f, y, qt;
    applied_force(sys_, q, 0.0, f);
    y = p + (0.5 * h_) * f;
    project_q_transpose(sys_, q, y, w_, qt);
    p = y - qt;
  }
  double h_;
  lanes::NhRattleProjectedKernel kernel_;
  std::int64_t last_k_ = 0;
  LaneRows<7> q_, p_half_;
  LaneRows<1> stepped_;
  mutable ConstraintWorkspace<Sys> w_;
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_lanes(const ChaoticQuartic<3>& sys,
                                                        const IntegratorChoice& choice,
                                                        const LaneSettings& settings) {
  if (choice.integrator == "si_dla" || choice.integrator == "rk4") {
    return make_method_lanes(sys, choice, settings);
  }
  const LaneSettings s = resolve_lane_settings(settings);
  if (s.isa == LaneIsa::kOff) return nullptr;
  const lanes::ChaoticQuarticKernels& k = kernel_table(s.isa);
  const int w = lanes::width_index(s.width);
  if (choice.integrator == "rk2") {
    return std::make_unique<CanonicalLanes>(sys, choice.h, s.width, k.rk2[w]);
  }
  if (choice.integrator == "nh_rattle") {
    return std::make_unique<NhRattleLanes>(sys, choice.h, s.width, k.nh_rattle[w]);
  }
  if (choice.integrator == "nh_rattle_projected") {
    return std::make_unique<NhRattleProjectedLanes>(sys, choice.h, s.width,
                                                    k.nh_rattle_projected[w]);
  }
  if (choice.integrator == "gonzalez") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.gonzalez[w]);
  }
  if (choice.integrator == "avf") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.avf[w]);
  }
  if (choice.integrator == "midpoint") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.midpoint[w]);
  }
  if (choice.integrator == "itoh_abe") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.itoh_abe[w]);
  }
  if (choice.integrator == "i_dla") {
    return make_chaotic_quartic_canonical_newton_lanes(sys, choice, s.width, k.i_dla[w]);
  }
  if (choice.integrator == "spark2") {
    return make_chaotic_quartic_canonical_newton_lanes(sys, choice, s.width, k.spark2[w]);
  }
  if (choice.integrator == "dla") {
    return make_chaotic_quartic_dla_lanes(sys, choice, s.width, k.dla[w]);
  }
  if (choice.integrator == "gonzalez_f") {
    return make_chaotic_quartic_canonical_newton_lanes(sys, choice, s.width, k.gonzalez_f[w]);
  }
  if (choice.integrator == "avf_f") {
    return make_chaotic_quartic_canonical_newton_lanes(sys, choice, s.width, k.avf_f[w]);
  }
  return nullptr;
}

}  // namespace nhsim

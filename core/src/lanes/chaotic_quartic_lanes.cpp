// Lane steppers of the chaotic quartic system (n = 3): si_dla and rk4 (nhsim/lanes.hpp), and the
// factory of all its lane steppers (gonzalez's and avf's are in
// chaotic_quartic_discrete_gradient_lanes.cpp). The state lives here, in structure of arrays;
// the steps are the kernels of the chosen instruction set (kernels_<isa>.cpp). Everything a lane
// reports (finiteness, state, energy, residual) is computed by gathering the lane into the scalar
// stepper's own vector types and calling the same functions the scalar stepper calls, in this
// translation unit's (baseline) instruction set.
#include "chaotic_quartic_lanes.hpp"

#include "kernels.hpp"
#include "lane_rows.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;
using VecQ = Sys::VecQ;
using VecZ = Sys::VecZ;
using lanes::LaneRows;

const lanes::ChaoticQuarticKernels& kernel_table(LaneIsa isa) {
#if defined(__x86_64__)
  if (isa == LaneIsa::kAvx512) return lanes::kChaoticQuarticAvx512;
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

/// si_dla: the canonical state (q, p), as SiDlaMethod keeps it.
class SiDlaLanes final : public LaneStepper {
 public:
  SiDlaLanes(const Sys& sys, double h, int width, lanes::SiDlaKernel kernel)
      : sys_(sys), h_(h), width_(width), kernel_(kernel), q_(width), p_(width) {}
  int width() const override { return width_; }
  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    q_.put(lane, 0, VecQ(q));
    p_.put(lane, 0, VecQ(p));
  }
  void advance(std::int64_t k) override {
    kernel_(q_.row(0), p_.row(0), k, h_);
    last_k_ = k;
  }
  AdvanceResult result(int lane) const override { return explicit_result(finite(lane), last_k_); }
  bool finite(int lane) const override {
    VecQ q, p;
    gather(lane, q, p);
    return all_finite(q) && all_finite(p);  // SiDlaMethod::state_finite
  }
  void get_state(int lane, Eigen::VectorXd& q, Eigen::VectorXd& p) const override {
    VecQ qq, pp;
    gather(lane, qq, pp);
    q = qq;
    p = pp;
  }
  double energy(int lane) const override {
    VecQ q, p;
    gather(lane, q, p);
    return sys_.hamiltonian(q, p);
  }
  void energy_and_residual(int lane, double& energy, double& residual) const override {
    VecQ q, p;
    gather(lane, q, p);
    energy = sys_.hamiltonian(q, p);
    residual = sys_.constraint_residual(q, p);
  }

 private:
  void gather(int lane, VecQ& q, VecQ& p) const {
    q_.take(lane, 0, q);
    p_.take(lane, 0, p);
  }
  Sys sys_;
  double h_;
  int width_;
  lanes::SiDlaKernel kernel_;
  std::int64_t last_k_ = 0;
  LaneRows<7> q_, p_;
};

/// rk4: the reduced state zeta = (q, rho) on D*, as Rk4Method keeps it.
class Rk4Lanes final : public LaneStepper {
 public:
  Rk4Lanes(const Sys& sys, double h, int width, lanes::Rk4Kernel kernel)
      : sys_(sys), h_(h), width_(width), kernel_(kernel), z_(width) {}
  int width() const override { return width_; }
  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    VecZ z;
    zeta_from_canonical(sys_, VecQ(q), VecQ(p), z);  // Rk4Method::set_canonical
    z_.put(lane, 0, z);
  }
  void advance(std::int64_t k) override {
    kernel_(z_.row(0), k, h_);
    last_k_ = k;
  }
  AdvanceResult result(int lane) const override { return explicit_result(finite(lane), last_k_); }
  bool finite(int lane) const override {
    VecZ z;
    z_.take(lane, 0, z);
    return all_finite(z);  // Rk4Method::state_finite
  }
  void get_state(int lane, Eigen::VectorXd& q, Eigen::VectorXd& p) const override {
    VecQ qq, pp;
    canonical(lane, qq, pp);
    q = qq;
    p = pp;
  }
  double energy(int lane) const override {
    VecQ q, p;
    canonical(lane, q, p);
    return sys_.hamiltonian(q, p);
  }
  void energy_and_residual(int lane, double& energy, double& residual) const override {
    VecQ q, p;
    canonical(lane, q, p);
    energy = sys_.hamiltonian(q, p);
    residual = sys_.constraint_residual(q, p);
  }

 private:
  void canonical(int lane, VecQ& q, VecQ& p) const {
    VecZ z;
    z_.take(lane, 0, z);
    canonical_from_zeta(sys_, z, q, p);  // Rk4Method::canonical
  }
  Sys sys_;
  double h_;
  int width_;
  lanes::Rk4Kernel kernel_;
  std::int64_t last_k_ = 0;
  LaneRows<13> z_;
};

}  // namespace

std::unique_ptr<LaneStepper> make_chaotic_quartic_lanes(const ChaoticQuartic<3>& sys,
                                                        const IntegratorChoice& choice,
                                                        const LaneSettings& settings) {
  const LaneSettings s = resolve_lane_settings(settings);
  if (s.isa == LaneIsa::kOff) return nullptr;
  const lanes::ChaoticQuarticKernels& k = kernel_table(s.isa);
  const int w = lanes::width_index(s.width);
  if (choice.integrator == "si_dla") {
    return std::make_unique<SiDlaLanes>(sys, choice.h, s.width, k.si_dla[w]);
  }
  if (choice.integrator == "rk4")
    return std::make_unique<Rk4Lanes>(sys, choice.h, s.width, k.rk4[w]);
  if (choice.integrator == "gonzalez") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.gonzalez[w]);
  }
  if (choice.integrator == "avf") {
    return make_chaotic_quartic_discrete_gradient_lanes(sys, choice, s.width, k.avf[w]);
  }
  return nullptr;
}

}  // namespace nhsim

// `rk2`, the explicit midpoint baseline of [Kobilarov2010] on the canonical index-1 equations:
// where a system has no constraint_dot, d mu / dt comes from the complex step, which equals the
// hand-written derivatives to round-off; the constraint then drifts at second order.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "nhsim/complex_step.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/gearbox.hpp"
#include "nhsim/systems/snakeboard.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

/// The complex-step d mu / dt against the system's own constraint_dot at random (q, v).
template <class S>
void expect_complex_step_matches_constraint_dot(const S& sys) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0.0, 2.0);
  const int nq = sys.nq(), nc = sys.nc();
  Eigen::VectorXcd qc(nq);
  Eigen::MatrixXcd muc(nc, nq);
  for (int trial = 0; trial < 20; ++trial) {
    typename S::VecQ q(nq), v(nq);
    for (int i = 0; i < nq; ++i) {
      q(i) = nd(rng);
      v(i) = nd(rng);
    }
    typename S::MatCQ by_hand(nc, nq), by_complex_step(nc, nq);
    sys.constraint_dot(q, v, by_hand);
    constraint_dot_by_complex_step(sys, q, v, qc, muc, by_complex_step);
    const double scale = std::max(1.0, by_hand.template lpNorm<Eigen::Infinity>());
    EXPECT_LT((by_hand - by_complex_step).template lpNorm<Eigen::Infinity>(), 4e-16 * scale)
        << "trial " << trial;
  }
}

TEST(Rk2, ComplexStepEqualsTheHandWrittenConstraintDot) {
  expect_complex_step_matches_constraint_dot(ChaplyginSleighCom(1.0, 2.0, 0.3));
  expect_complex_step_matches_constraint_dot(Snakeboard(1.0, 0.5, 0.2, 0.1));
}

// On the gearbox (no constraint_dot, mu nonlinear in q) rk2 runs with the complex-step
// d mu / dt; nothing projects the constraint back, so its residual at t = 5 is O(h^2): halving
// h divides it by about 4.
TEST(Rk2, GearboxConstraintDriftIsSecondOrder) {
  const Gearbox sys(1.0, 1.0, 0.2);
  test::Ic ic;  // mu(q) = (1, sin q3, 0) and M = I: p1 = -sin(q3) p2 puts p on the distribution
  ic.q = Eigen::Vector3d(0.3, -0.2, 0.1);
  ic.p = Eigen::Vector3d(-std::sin(0.1) * 0.5, 0.5, 0.4);
  std::vector<double> residual;
  for (const double h : {0.02, 0.01, 0.005}) {
    auto st = test::make_stepper(sys, "rk2", h);
    st->set_state(ic.q, ic.p);
    ASSERT_EQ(st->advance(std::llround(5.0 / h)).status, StepStatus::kOk);
    residual.push_back(st->constraint_residual());
  }
  for (std::size_t k = 0; k + 1 < residual.size(); ++k) {
    EXPECT_GT(residual[k], 1e-9) << "the constraint is not kept, only approximated";
    EXPECT_NEAR(std::log2(residual[k] / residual[k + 1]), 2.0, 0.3) << "h = " << 0.02 / (1 << k);
  }
}

}  // namespace
}  // namespace nhsim

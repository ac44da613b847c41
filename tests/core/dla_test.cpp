// `dla` (Cortés & Martínez 2001) as a generic integrator: on the chaotic quartic system
// ([Celledoni2019] §4.1, a non-quadratic potential and a q-dependent constraint) its steps satisfy
// the two-step discrete Lagrange-d'Alembert equations and the midpoint discrete constraint, the
// reported momentum lies on D, and it is second order.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using S = ChaoticQuartic<3>;

// D2 L_d(q_{k-1}, q_k) + D1 L_d(q_k, q_{k+1}) lies in D^o_{q_k} = span mu(q_k)^T, with the
// midpoint L_d of dla.hpp (M = I): D2 L_d(a, b) = (b - a)/h - (h/2) grad V((a + b)/2),
// D1 L_d(a, b) = -(b - a)/h - (h/2) grad V((a + b)/2).
TEST(Dla, StepsSolveTheDiscreteLagrangeDAlembertEquations) {
  const S sys(3);
  const test::Ic ic = test::chaotic_shell_state(0);
  const double h = 0.1;
  auto st = test::make_stepper(sys, "dla", h);
  st->set_state(ic.q, ic.p);
  std::vector<Eigen::VectorXd> qs = {ic.q};
  Eigen::VectorXd q(7), p(7);
  for (int k = 0; k < 200; ++k) {
    ASSERT_EQ(st->advance(1).status, StepStatus::kOk);
    st->get_state(q, p);
    qs.push_back(q);
    EXPECT_LT(sys.constraint_residual(S::VecQ(q), S::VecQ(p)), 1e-13);
  }
  double worst_del = 0.0, worst_c = 0.0;
  for (std::size_t k = 1; k + 1 < qs.size(); ++k) {
    const S::VecQ a = qs[k - 1], b = qs[k], c = qs[k + 1];
    S::VecQ gab, gbc;
    sys.grad_potential(S::VecQ(0.5 * (a + b)), gab);
    sys.grad_potential(S::VecQ(0.5 * (b + c)), gbc);
    const S::VecQ d2 = (b - a) / h - 0.5 * h * gab;
    const S::VecQ d1 = -(c - b) / h - 0.5 * h * gbc;
    const S::VecQ r = d2 + d1;
    S::MatCQ mu;
    sys.constraint(b, mu);
    // Component of r orthogonal to mu(q_k)^T.
    const S::VecQ perp = r - mu.transpose() * (mu * r) / mu.squaredNorm();
    worst_del = std::max(worst_del, perp.lpNorm<Eigen::Infinity>());
    // Midpoint discrete constraint of the step (q_k, q_{k+1}).
    sys.constraint(S::VecQ(0.5 * (b + c)), mu);
    worst_c = std::max(worst_c, std::abs((mu * (c - b))(0)) / h);
  }
  EXPECT_LT(worst_del, 1e-11);
  EXPECT_LT(worst_c, 1e-12);
}

TEST(Dla, IsSecondOrderAndDiffersFromIDla) {
  const S sys(3);
  const test::Ic ic = test::chaotic_shell_state(1);
  const Eigen::VectorXd ref = test::state_at(sys, "rk4", 1e-3, 10.0, ic);
  EXPECT_NEAR(test::observed_order(sys, "dla", 0.02, ic, ref), 2.0, 0.15);
  const Eigen::VectorXd a = test::state_at(sys, "dla", 0.05, 10.0, ic);
  const Eigen::VectorXd b = test::state_at(sys, "i_dla", 0.05, 10.0, ic);
  EXPECT_GT((a - b).lpNorm<Eigen::Infinity>(), 1e-6);  // multiplier at the node, not midpoint
}

}  // namespace
}  // namespace nhsim

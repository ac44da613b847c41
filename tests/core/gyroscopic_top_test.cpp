// Gyroscopic top in director coordinates ([Kinon2023] §5.1): parameters, the steady precession
// initial data, the registry, and rk2 (index-1 baseline) drifting off g(q) = 0. The GGL
// integrator on it is tested in ggl_test.cpp.
#include "nhsim/systems/gyroscopic_top.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "gyroscopic_top_support.hpp"
#include "nhsim/holonomic.hpp"
#include "nhsim/model.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim {
namespace {

using Vec = GyroscopicTop::VecQ;
using test::kAlpha0;
using test::kOmegaP;
using test::paper_state;
using test::paper_top;

TEST(GyroscopicTop, ParametersAndEulerTensor) {
  const auto top = paper_top();
  EXPECT_DOUBLE_EQ(top.euler(1), 0.5 * 5.3014e-4);
  EXPECT_DOUBLE_EQ(top.euler(3), 0.5 * 5.3014e-4);
  // eq. (62a): the cone with rho = 2700 kg/m^3, a = 0.1 m, r = a/2 gives the printed data.
  const double a = 0.1, r = 0.05, m = 2700.0 * std::numbers::pi * r * r * a / 3.0;
  EXPECT_NEAR(m, 0.7069, 1e-4);
  EXPECT_NEAR(3.0 / 80.0 * m * (4 * r * r + a * a), 5.3014e-4, 1e-7);
  EXPECT_NEAR(0.3 * m * r * r, 5.3014e-4, 1e-7);
  EXPECT_THROW(GyroscopicTop(0.7, 1.0, 1.0, 3.0, 0.075, 9.81), std::invalid_argument);  // E3 < 0
  EXPECT_THROW(GyroscopicTop(-1.0, 1.0, 1.0, 1.0, 0.075, 9.81), std::invalid_argument);
}

TEST(GyroscopicTop, SteadyPrecessionStateIsConsistent) {
  const auto top = paper_top();
  // eq. (66) with the paper's data: 135.6 1/s as printed.
  EXPECT_NEAR(top.steady_spin_rate(kAlpha0, kOmegaP), 135.6, 0.05);
  Vec q, p;
  paper_state(top, q, p);
  EXPECT_LT(position_constraint_residual(top, q), 1e-16);
  EXPECT_LT(top.constraint_residual(q, p), 1e-12);
  EXPECT_NEAR(q(2), 0.0375, 1e-15);  // phi3 = l cos(alpha0)
  // phi' = omega0 x phi has no vertical component: steady precession starts level.
  Vec v;
  top.inv_mass_times(q, p, v);
  EXPECT_NEAR(v(2), 0.0, 1e-15);
  // Jacobian = derivative of g (central differences), Hessian contraction = dG/dq . w.
  Eigen::Matrix<double, 9, 12> gm, gp, gmi, cw;
  top.holonomic_jacobian(q, gm);
  Eigen::Matrix<double, 9, 1> g1, g2;
  for (int j = 0; j < 12; ++j) {
    Vec a = q, b = q;
    a(j) += 1e-6;
    b(j) -= 1e-6;
    top.holonomic_constraint(a, g1);
    top.holonomic_constraint(b, g2);
    EXPECT_LT(((g1 - g2) / 2e-6 - gm.col(j)).cwiseAbs().maxCoeff(), 1e-9) << j;
  }
  const Vec w = Vec::LinSpaced(12, -1.0, 2.0);
  top.holonomic_jacobian(Vec(q + w), gp);
  top.holonomic_hessian_contract(w, cw);
  EXPECT_LT((gp - gm - cw).cwiseAbs().maxCoeff(), 1e-15);
}

// rk2 (index-1 canonical form, constraint_dot from the constant Hessians) applies to the top as
// the explicit baseline; it keeps only the velocity level, so |g(q)| drifts.
TEST(Rk2, TopDriftsOffThePositionConstraints) {
  const auto top = paper_top();
  Vec q, p;
  paper_state(top, q, p);
  IntegratorChoice c;
  c.integrator = "rk2";
  c.h = 0.002;
  auto st = make_stepper_for(top, c);
  ASSERT_NE(st, nullptr);
  Eigen::VectorXd qd = q, pd = p;
  st->set_state(qd, pd);
  ASSERT_EQ(st->advance(1000).status, StepStatus::kOk);
  st->get_state(qd, pd);
  const double g = position_constraint_residual(top, Vec(qd));
  std::printf("rk2 top T = 2: |g| %.3e\n", g);
  EXPECT_GT(g, 1e-6);
}

TEST(GyroscopicTop, RegistryAppliesGglAndTheCanonicalMethods) {
  const auto* e = find_system("gyroscopic_top");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(not_applicable("gyroscopic_top", "ggl").has_value());
  EXPECT_FALSE(not_applicable("gyroscopic_top", "rk2").has_value());
  EXPECT_TRUE(not_applicable("gyroscopic_top", "gonzalez").has_value());
  const auto model = e->make(complete_parameters(*e, {}));
  EXPECT_EQ(model->nq(), 12);
  EXPECT_EQ(model->nc(), 9);
  EXPECT_THROW(e->make(complete_parameters(*e, {{"J3", 5.0}})), SpecError);
}

}  // namespace
}  // namespace nhsim

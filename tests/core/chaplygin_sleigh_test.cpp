// The Chaplygin sleigh ([Celledoni2019] §4.2): canonical data as printed, the orthonormal reduced
// form eq. (22) against the canonical nonholonomic field, and Prop. 4.1 / Fig. 3 with `gonzalez`.
#include "nhsim/systems/chaplygin_sleigh.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/model.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/stepper_factory.hpp"
#include "reduced_form_checks.hpp"

namespace nhsim {
namespace {

using S = ChaplyginSleigh;

// Distinct values so that a mix-up of J, a, m shows; the paper's values for Prop. 4.1.
constexpr double kJ = 1.7, kA = 0.6, kM = 2.3;
S sleigh() { return S(kJ, kA, kM); }
S paper_sleigh() { return S(8.0, 1.0, 1.0); }

// The metric printed in §4.2, written out independently of the system.
Eigen::Matrix3d printed_metric(double th, double j = kJ, double a = kA, double m = kM) {
  const double s = std::sin(th), c = std::cos(th);
  Eigen::Matrix3d g;
  g << m, 0, -m * a * s, 0, m, m * a * c, -m * a * s, m * a * c, j + m * a * a;
  return g;
}

S::VecZ random_zeta(std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  S::VecZ z;
  for (int i = 0; i < 5; ++i) z(i) = nd(rng);
  return z;
}

TEST(ChaplyginSleigh, CanonicalDataAsPrinted) {
  const S sys = sleigh();
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecQ q(nd(rng), nd(rng), 3.0 * nd(rng));
    const S::VecQ p(nd(rng), nd(rng), nd(rng));
    const Eigen::Matrix3d g = printed_metric(q(2));
    EXPECT_LT((sys.mass_matrix_dyn(q) - g).lpNorm<Eigen::Infinity>(), 1e-15);
    S::VecQ v;
    sys.inv_mass_times(q, p, v);
    const Eigen::Vector3d vref = g.inverse() * p;
    EXPECT_LT((v - vref).lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_NEAR(sys.hamiltonian(q, p), 0.5 * p.dot(vref), 1e-12);
    S::MatCQ mu;
    sys.constraint(q, mu);
    EXPECT_NEAR(mu(0, 0), -std::sin(q(2)), 2.3e-16);  // 2 ulp: nhsim's sincos against glibc's
    EXPECT_NEAR(mu(0, 1), std::cos(q(2)), 2.3e-16);
    EXPECT_EQ(mu(0, 2), 0.0);
    EXPECT_NEAR(sys.constraint_value(q, p), (mu * vref)(0), 1e-12);
    EXPECT_NEAR(sys.constraint_residual(q, p), std::abs((mu * vref)(0)), 1e-12);
    EXPECT_EQ(sys.potential(q), 0.0);
  }
  EXPECT_FALSE(S::kConstantMass);
  EXPECT_TRUE(S::kHasReducedForm);
  EXPECT_THROW(S(0.0, 1, 1), std::invalid_argument);
  EXPECT_THROW(S(1, -1.0, 1), std::invalid_argument);
  EXPECT_THROW(S(1, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(S(1, std::nan(""), 1), std::invalid_argument);
}

TEST(ChaplyginSleigh, FrameIsOrthonormalAndPiIsThePrintedMatrix) {
  const S sys = sleigh();
  const double ii = kJ + kM * kA * kA, c112 = kA * std::sqrt(kM) / ii;
  EXPECT_NEAR(sys.c112(), c112, 1e-16);
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(rng);
    const double th = z(2), r1 = z(3), s = std::sin(th), c = std::cos(th);
    // X1, X2 of §4.2 (columns) are g-orthonormal; the printed X3 is g-orthogonal to them and
    // has the printed norm.
    Eigen::Matrix<double, 3, 2> x;
    x << 0, c / std::sqrt(kM), 0, s / std::sqrt(kM), 1 / std::sqrt(ii), 0;
    const Eigen::Matrix3d g = printed_metric(th);
    EXPECT_LT((x.transpose() * g * x - Eigen::Matrix2d::Identity()).lpNorm<Eigen::Infinity>(),
              1e-14);
    const Eigen::Vector3d x3 = Eigen::Vector3d(ii / (kM * kA) * s, -ii / (kM * kA) * c, 1.0) /
                               std::sqrt(ii * ii / (kM * kA * kA) - ii);
    EXPECT_LT((x.transpose() * g * x3).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_NEAR(x3.dot(g * x3), 1.0, 1e-14);
    // Pi(theta, rho1) as printed in §4.2.
    Eigen::Matrix<double, 5, 5> pi = Eigen::Matrix<double, 5, 5>::Zero();
    pi.block<3, 2>(0, 3) = x;
    pi.block<2, 3>(3, 0) = -x.transpose();
    pi(3, 4) = -c112 * r1;
    pi(4, 3) = c112 * r1;
    for (int k = 0; k < 5; ++k) {
      S::VecZ e = S::VecZ::Zero(), out;
      e(k) = 1.0;
      sys.apply_pi(z, e, out);
      EXPECT_LT((out - pi.col(k)).lpNorm<Eigen::Infinity>(), 1e-15) << k;
    }
  }
}

TEST(ChaplyginSleigh, ReducedGradientMatchesFiniteDifferencesAndPiIsSkew) {
  const S sys = sleigh();
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(rng);
    EXPECT_NEAR(sys.reduced_hamiltonian(z), 0.5 * (z(3) * z(3) + z(4) * z(4)), 1e-15);
    const S::VecZ u = random_zeta(rng), v = random_zeta(rng);
    test::expect_reduced_form_consistent(sys, z, u, v, 1e-9, 1e-13);
  }
}

// Eq. (16a-b) are inverse on D*, the constraint holds, H agrees, and the reduced field eq. (9)
// (= eq. (22) for rho) equals the canonical nonholonomic field eq. (6c-d), written here
// independently: qdot = M^-1 p, pdot = -dH/dq + mu^T lambda, lambda from d/dt (mu M^-1 p) = 0.
TEST(ChaplyginSleigh, ReducedAndCanonicalFormsDescribeTheSameMotion) {
  const S sys = sleigh();
  const double ii = kJ + kM * kA * kA, sm = std::sqrt(kM), c112 = kA * sm / ii;
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(rng);
    const S::VecQ q = z.head<3>();
    const S::VecR rho = z.tail<2>();
    S::VecQ p;
    sys.from_reduced(q, rho, p);
    EXPECT_LT(sys.constraint_residual(q, p), 1e-14);
    S::VecR rho_back;
    sys.to_reduced(q, p, rho_back);
    EXPECT_LT((rho_back - rho).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_NEAR(sys.hamiltonian(q, p), sys.reduced_hamiltonian(z), 1e-14);
    // A momentum off D is detected by the residual.
    S::VecQ poff = p;
    poff(0) -= 1e-3 * std::sin(q(2));  // p + 1e-3 mu^T: residual 1e-3 mu M^-1 mu^T
    poff(1) += 1e-3 * std::cos(q(2));
    EXPECT_NEAR(sys.constraint_residual(q, poff), 1e-3 * (1 / kM + kA * kA / kJ), 1e-15);

    const double th = q(2), s = std::sin(th), c = std::cos(th);
    const Eigen::Matrix3d g = printed_metric(th);
    const Eigen::Matrix3d ginv = g.inverse();
    const Eigen::Vector3d qdot = ginv * p;
    Eigen::Matrix3d dg = Eigen::Matrix3d::Zero();  // dM/dtheta
    dg(0, 2) = dg(2, 0) = -kM * kA * c;
    dg(1, 2) = dg(2, 1) = -kM * kA * s;
    const Eigen::Vector3d dhdq(0.0, 0.0, -0.5 * qdot.dot(dg * qdot));
    const Eigen::RowVector3d mu(-s, c, 0.0);
    const Eigen::RowVector3d dmu = Eigen::RowVector3d(-c, -s, 0.0) * qdot(2);
    const Eigen::Vector3d gdot_v = dg * qdot * qdot(2);
    // 0 = dmu v + mu M^-1 (pdot - Mdot v), pdot = -dH/dq + mu^T lambda.
    const double lambda =
        (mu.dot(ginv * (dhdq + gdot_v)) - dmu.dot(qdot)) / mu.dot(ginv * mu.transpose());
    const Eigen::Vector3d pdot = -dhdq + mu.transpose() * lambda;

    S::VecZ gw, f;
    sys.reduced_rhs(z, gw, f);
    EXPECT_LT((f.head<3>() - qdot).lpNorm<Eigen::Infinity>(), 1e-13);
    // rho = X^T p: rhodot = X^T pdot + (dX/dt)^T p, dX2/dt = (-s, c, 0) thetadot / sqrt(m).
    Eigen::Vector2d rhodot;
    rhodot(0) = pdot(2) / std::sqrt(ii);
    rhodot(1) = (c * pdot(0) + s * pdot(1)) / sm + qdot(2) * (-s * p(0) + c * p(1)) / sm;
    EXPECT_LT((f.tail<2>() - rhodot).lpNorm<Eigen::Infinity>(), 1e-12);
    // ... which is eq. (22).
    EXPECT_NEAR(f(3), -c112 * rho(0) * rho(1), 1e-13);
    EXPECT_NEAR(f(4), c112 * rho(0) * rho(0), 1e-13);
    // The physical reading: m v' = m a w^2 with v the forward speed and w = theta'.
    const double fwd = c * qdot(0) + s * qdot(1);
    EXPECT_NEAR(fwd, rho(1) / sm, 1e-13);
    EXPECT_NEAR(kM * f(4) / sm, kM * kA * qdot(2) * qdot(2), 1e-12);
  }
}

TEST(ChaplyginSleigh, RegistryDefaultsAndApplicability) {
  const SystemEntry* e = find_system("chaplygin_sleigh");
  ASSERT_NE(e, nullptr);
  const auto params = complete_parameters(*e, {});
  EXPECT_EQ(params.at("J"), 8.0);
  EXPECT_EQ(params.at("a"), 1.0);
  EXPECT_EQ(params.at("m"), 1.0);
  const auto why = e->not_applicable("si_dla");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("constant mass"), std::string::npos) << *why;
  EXPECT_FALSE(e->not_applicable("gonzalez").has_value());
  EXPECT_FALSE(e->not_applicable("gonzalez_r").has_value());
  EXPECT_FALSE(e->not_applicable("gonzalez_r_fd").has_value());
  const auto model = e->make(params);
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.5;
  EXPECT_THROW(model->make_stepper(c), SpecError);
  c.integrator = "gonzalez";
  EXPECT_NE(model->make_stepper(c), nullptr);
  try {
    complete_parameters(*e, {{"J", 0.0}});
    ADD_FAILURE() << "J = 0 accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "parameters.J");
  }
}

// ---- Prop. 4.1 / Fig. 3 ----

struct SleighRun {
  std::vector<double> rho1, rho2, theta;  // after each step, index 0 = initial
  double max_rel_energy_error = 0.0;
  double max_constraint = 0.0;
  StepStatus status = StepStatus::kOk;
  std::int64_t steps = 0;
};

// The paper's initial data: x1 = -5, x2 = 0, theta = 0.1, rho = (rho1, -0.6), canonical via
// eq. (16a); `gonzalez` with step h for n steps (stops at the first failed step).
SleighRun run_gonzalez(double rho1, double h, std::int64_t n, double newton_tol = 0.0) {
  const S sys = paper_sleigh();
  const S::VecQ q0(-5.0, 0.0, 0.1);
  S::VecQ p0;
  sys.from_reduced(q0, S::VecR(rho1, -0.6), p0);
  IntegratorChoice c;
  c.integrator = "gonzalez";
  c.h = h;
  c.newton_tol = newton_tol;
  auto st = make_stepper_for(sys, c);
  EXPECT_NE(st, nullptr);
  SleighRun r;
  if (!st) return r;
  st->set_state(q0, p0);
  const double h0 = sys.hamiltonian(q0, p0);
  r.rho1.push_back(rho1);
  r.rho2.push_back(-0.6);
  r.theta.push_back(0.1);
  Eigen::VectorXd q(3), p(3);
  for (std::int64_t k = 0; k < n; ++k) {
    const AdvanceResult a = st->advance(1);
    if (a.status != StepStatus::kOk) {
      r.status = a.status;
      break;
    }
    ++r.steps;
    st->get_state(q, p);
    S::VecR rho;
    sys.to_reduced(S::VecQ(q), S::VecQ(p), rho);
    r.rho1.push_back(rho(0));
    r.rho2.push_back(rho(1));
    r.theta.push_back(q(2));
    r.max_rel_energy_error = std::max(r.max_rel_energy_error,
                                      std::abs(sys.hamiltonian(S::VecQ(q), S::VecQ(p)) - h0) / h0);
    r.max_constraint = std::max(r.max_constraint, sys.constraint_residual(S::VecQ(q), S::VecQ(p)));
  }
  return r;
}

int sign_changes(const std::vector<double>& v) {
  int n = 0;
  for (std::size_t i = 1; i < v.size(); ++i) n += (v[i] * v[i - 1] < 0.0) ? 1 : 0;
  return n;
}

TEST(ChaplyginSleigh, Prop41StepBoundForThePaperValues) {
  const S sys = paper_sleigh();
  // C^1_12 = a sqrt(m) / (J + m a^2) = 1/9; |2 / (C^1_12 rho2)| at rho2 = -0.6 is 30.
  EXPECT_NEAR(sys.c112(), 1.0 / 9.0, 1e-16);
  EXPECT_NEAR(sys.step_bound(-0.6), 30.0, 1e-12);
  // lambda1 of Prop. 4.1 at h = 0.5: > 1 at rho2 = -0.6 (unstable), in (0, 1) at +0.6.
  EXPECT_NEAR(sys.prop41_eigenvalue(0.5, -0.6), (2 + 0.5 / 15) / (2 - 0.5 / 15), 1e-15);
  EXPECT_GT(sys.prop41_eigenvalue(0.5, -0.6), 1.0);
  EXPECT_GT(sys.prop41_eigenvalue(0.5, 0.6), 0.0);
  EXPECT_LT(sys.prop41_eigenvalue(0.5, 0.6), 1.0);
  // Beyond the bound lambda1 < 0.
  EXPECT_LT(sys.prop41_eigenvalue(40.0, -0.6), 0.0);
  EXPECT_LT(sys.prop41_eigenvalue(40.0, 0.6), 0.0);
}

// Fig. 3: started next to the unstable equilibrium (rho1 = +-0.001, rho2 = -0.6), h = 0.5, the
// method leaves it (rho1 grows by lambda1 per step) and ends at the stable equilibrium
// (0, +R), R = |rho(0)|, keeping the sign of rho1 throughout (the continuous rho1 never changes
// sign), with the energy and the constraint kept to round-off.
TEST(ChaplyginSleigh, Prop41Fig3LeavesTheUnstableAndEndsAtTheStableEquilibrium) {
  const S sys = paper_sleigh();
  const double h = 0.5, t_end = 400.0;
  const auto n = static_cast<std::int64_t>(t_end / h);
  const double big_r = std::sqrt(0.6 * 0.6 + 1e-6);
  const double lam = sys.prop41_eigenvalue(h, -0.6);
  // The continuous solution of eq. (22): rho2 = R tanh(u), rho1 = +-R sech(u),
  // u = C R t + atanh(rho2(0) / R); theta = theta0 +- (gd(u) - gd(u0)) / (C sqrt(J + m a^2)).
  const double cr = sys.c112() * big_r, u0 = std::atanh(-0.6 / big_r);
  auto gd = [](double u) { return 2.0 * std::atan(std::tanh(0.5 * u)); };
  for (const double r10 : {0.001, -0.001}) {
    // Newton tolerance below the default: the default convergence test scales with
    // max(1, |zeta|_inf), and |x1| grows to ~200 here (see the report).
    const SleighRun r = run_gonzalez(r10, h, n, 1e-16);
    ASSERT_EQ(r.status, StepStatus::kOk) << r10;
    ASSERT_EQ(r.steps, n);
    // Leaves the unstable equilibrium at the rate lambda1 of Prop. 4.1.
    EXPECT_NEAR(r.rho1[1] / r.rho1[0], lam, 1e-5);
    EXPECT_NEAR(r.rho1[10] / r.rho1[0], std::pow(lam, 10), 1e-3 * std::pow(lam, 10));
    // ... passes through (+-R, 0) ...
    double max_abs = 0.0;
    for (const double v : r.rho1) max_abs = std::max(max_abs, std::abs(v));
    EXPECT_NEAR(max_abs, big_r, 1e-3);
    // ... and ends at the stable one, rho1 -> 0 with its initial sign, rho2 -> +R.
    EXPECT_EQ(sign_changes(r.rho1), 0);
    EXPECT_GT(r.rho1.back() * r10, 0.0);
    EXPECT_LT(std::abs(r.rho1.back()), 1e-7);
    EXPECT_NEAR(r.rho2.back(), big_r, 1e-12);
    // rho2 increases monotonically (eq. (23e): rho2' - rho2 = h/4 C (rho1 + rho1')^2 >= 0).
    for (std::size_t k = 1; k < r.rho2.size(); ++k) EXPECT_GE(r.rho2[k], r.rho2[k - 1] - 1e-15);
    // Against the continuous solution: the heading turns by 3 pi (C sqrt(J + m a^2) = 1/3).
    const double u = cr * t_end + u0;
    const double theta_exact = 0.1 + (r10 > 0 ? 1 : -1) * (gd(u) - gd(u0)) /
                                         (sys.c112() * std::sqrt(sys.contact_inertia()));
    EXPECT_NEAR(r.theta.back(), theta_exact, 1e-3);
    EXPECT_NEAR(std::abs(r.theta.back() - 0.1), 3.0 * M_PI, 0.01);
    const std::size_t mid = n / 4;  // t = 100, mid-transition: second order accuracy
    const double um = cr * (h * static_cast<double>(mid)) + u0;
    EXPECT_NEAR(r.rho2[mid], big_r * std::tanh(um), 2e-3);
    EXPECT_NEAR(std::abs(r.rho1[mid]), big_r / std::cosh(um), 2e-3);
    // Energy to round-off (relative), constraint to round-off.
    EXPECT_LT(r.max_rel_energy_error, 1e-13);
    EXPECT_LT(r.max_constraint, 1e-14);
  }
}

// Beyond the bound h < |2 / (C^1_12 rho2)| = 30 the eigenvalue lambda1 of Prop. 4.1 is negative:
// the discrete rho1 changes sign every step near the equilibrium, which the continuous rho1 never
// does. Below the bound (h = 20) the same start keeps its sign and grows by lambda1 = 5 > 0.
TEST(ChaplyginSleigh, Prop41BeyondTheStepBoundRho1Oscillates) {
  const S sys = paper_sleigh();
  {
    const double h = 20.0;
    ASSERT_LT(h, sys.step_bound(-0.6));
    const SleighRun r = run_gonzalez(0.001, h, 3);
    ASSERT_GE(r.steps, 3);
    EXPECT_NEAR(r.rho1[1] / r.rho1[0], sys.prop41_eigenvalue(h, -0.6), 1e-3);
    EXPECT_NEAR(sys.prop41_eigenvalue(h, -0.6), 5.0, 1e-12);
    EXPECT_EQ(sign_changes(r.rho1), 0);
  }
  {
    const double h = 40.0;
    ASSERT_GT(h, sys.step_bound(-0.6));
    const SleighRun r = run_gonzalez(0.001, h, 2);
    ASSERT_GE(r.steps, 2);
    EXPECT_NEAR(sys.prop41_eigenvalue(h, -0.6), -7.0, 1e-12);
    EXPECT_NEAR(r.rho1[1] / r.rho1[0], sys.prop41_eigenvalue(h, -0.6), 1e-3);
    EXPECT_EQ(sign_changes(r.rho1), 2);  // + - +
    EXPECT_LT(r.max_rel_energy_error, 1e-13);
  }
}

}  // namespace
}  // namespace nhsim

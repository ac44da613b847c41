// Integrators on the chaotic quartic system ([Celledoni2019] §4.1, Fig. 2): energy and constraint
// preservation, observed order of accuracy, agreement of reduced and canonical forms.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nhsim/initial_conditions.hpp"
#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/registry.hpp"  // applicability of the test-local CanonicalOnly
#include "nhsim/model.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using Sys = ChaoticQuartic<3>;

using test::Ic;

Ic shell_state(std::int64_t i, double energy = 3.06) {
  return test::chaotic_shell_state(i, energy);
}

std::unique_ptr<Stepper> make(const std::string& id, double h) {
  return test::make_stepper(Sys(3), id, h);
}

Eigen::VectorXd state_at(const std::string& id, double h, double t, const Ic& ic) {
  return test::state_at(Sys(3), id, h, t, ic);
}

TEST(EnergyShell, StatesLieOnTheShellAndTheDistributionAndDependOnlyOnSeedAndIndex) {
  ModelImpl<Sys> model(Sys(3));
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 42;
  for (std::int64_t i = 0; i < 50; ++i) {
    Eigen::VectorXd q, p, q2, p2;
    std::string reason;
    ASSERT_TRUE(energy_shell_state(model, g, i, q, p, reason));
    EXPECT_NEAR(model.hamiltonian(q, p), 3.06, 1e-14);
    EXPECT_LT(model.constraint_residual(q, p), 1e-14);
    // Regenerating index i later (after other indices) gives the same bits.
    ASSERT_TRUE(energy_shell_state(model, g, i, q2, p2, reason));
    EXPECT_EQ(q, q2);
    EXPECT_EQ(p, p2);
  }
  Eigen::VectorXd q0, p0, q1, p1;
  std::string reason;
  ASSERT_TRUE(energy_shell_state(model, g, 0, q0, p0, reason));
  ASSERT_TRUE(energy_shell_state(model, g, 1, q1, p1, reason));
  EXPECT_NE(q0, q1);
  g.energy = -1.0;  // V >= 0 everywhere: no state exists, the generator must say so
  g.max_attempts = 20;
  EXPECT_FALSE(energy_shell_state(model, g, 0, q0, p0, reason));
  EXPECT_NE(reason.find("20 attempts"), std::string::npos);
}

// Discrete gradient methods preserve H to round-off: |H(t) - H(0)| / |H(0)| <= 1e-13 over
// 10^4 steps; the constraint holds to 1e-13 for gonzalez, avf and si_dla.
TEST(Integrators, DiscreteGradientsPreserveEnergyAndAllKeepTheConstraint) {
  const Ic ic = shell_state(3);
  for (const std::string id : {"gonzalez", "avf", "si_dla"}) {
    auto st = make(id, 0.05);
    st->set_state(ic.q, ic.p);
    const double h0 = st->energy();
    double max_rel = 0.0, max_res = 0.0;
    for (int k = 0; k < 100; ++k) {
      ASSERT_EQ(st->advance(100).status, StepStatus::kOk) << id;
      max_rel = std::max(max_rel, std::abs(st->energy() - h0) / std::abs(h0));
      max_res = std::max(max_res, st->constraint_residual());
    }
    EXPECT_LE(max_res, 1e-13) << id;
    if (id != "si_dla") {
      EXPECT_LE(max_rel, 1e-13) << id;
    } else {
      EXPECT_GT(max_rel, 1e-8) << "si_dla is not energy preserving; a tiny error means the "
                                  "test does not exercise the integrator";
    }
  }
}

// Itoh-Abe (eq. 13) preserves H to round-off: |H(t) - H(0)| / |H(0)| <= 1e-13 over 10^4 steps,
// and keeps the constraint at 1e-13 (Remark 3.3). A non-energy-preserving method (midpoint,
// H is not quadratic here) on the same run drifts far above that: the test can fail.
TEST(Integrators, ItohAbePreservesEnergyAndConstraint) {
  const Ic ic = shell_state(3);
  for (const std::string id : {"itoh_abe", "midpoint"}) {
    auto st = make(id, 0.05);
    st->set_state(ic.q, ic.p);
    const double h0 = st->energy();
    double max_rel = 0.0, max_res = 0.0;
    for (int k = 0; k < 100; ++k) {
      ASSERT_EQ(st->advance(100).status, StepStatus::kOk) << id;
      max_rel = std::max(max_rel, std::abs(st->energy() - h0) / std::abs(h0));
      max_res = std::max(max_res, st->constraint_residual());
    }
    EXPECT_LE(max_res, 1e-13) << id;
    if (id == "itoh_abe") {
      EXPECT_LE(max_rel, 1e-13) << id;
    } else {
      EXPECT_GT(max_rel, 1e-8) << "midpoint does not preserve a non-quadratic H";
    }
  }
}

// Observed order by step halving against a fine reference at t = 10 ([Celledoni2019] Fig. 2 top
// left): 2 +- 0.15 for gonzalez, avf, si_dla, midpoint; 4 +- 0.2 for rk4; 1 +- 0.2 for itoh_abe
// (the coordinate increment gradient is not symmetric, so the method is first order).
TEST(Integrators, ObservedOrderByStepHalving) {
  const Ic ic = shell_state(5);
  const double t = 10.0;
  const Eigen::VectorXd ref = state_at("rk4", 1e-3, t, ic);
  struct Case {
    std::string id;
    double h0;
    double order;
    double tol;
  };
  for (const Case& c : {Case{"gonzalez", 0.02, 2.0, 0.15}, Case{"avf", 0.02, 2.0, 0.15},
                        Case{"si_dla", 0.02, 2.0, 0.15}, Case{"rk4", 0.04, 4.0, 0.2},
                        Case{"midpoint", 0.02, 2.0, 0.15}, Case{"itoh_abe", 0.02, 1.0, 0.2}}) {
    const double order = test::observed_order(Sys(3), c.id, c.h0, ic, ref);
    EXPECT_NEAR(order, c.order, c.tol) << c.id;
  }
}

// Reference trajectory of the canonical equations (6c-d) of [Celledoni2019], written independently
// of the reduced form: qdot = p, pdot = -grad V + lambda mu^T, with lambda from the
// differentiated constraint, integrated by RK4.
Eigen::VectorXd canonical_rk4(const Ic& ic, double h, double t) {
  const Sys sys(3);
  auto rhs = [&](const Eigen::VectorXd& y) {
    Sys::VecQ q = y.head<7>(), p = y.tail<7>(), gv;
    sys.grad_potential(q, gv);
    Sys::MatCQ mu;
    sys.constraint(q, mu);
    double dmu_p = 0.0;
    for (int i = 0; i < 3; ++i) dmu_p += p(sys.w(i)) * p(sys.z(i));
    const double lambda = (mu.row(0).dot(gv) - dmu_p) / mu.row(0).squaredNorm();
    Eigen::VectorXd out(14);
    out << p, -gv + lambda * mu.row(0).transpose();
    return out;
  };
  Eigen::VectorXd y(14);
  y << ic.q, ic.p;
  const auto n = std::llround(t / h);
  for (long long k = 0; k < n; ++k) {
    const Eigen::VectorXd k1 = rhs(y), k2 = rhs(y + 0.5 * h * k1), k3 = rhs(y + 0.5 * h * k2),
                          k4 = rhs(y + h * k3);
    y += h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return y;
}

// A trajectory of the reduced form, mapped back through eq. (16a), agrees with the canonical
// trajectory to 1e-10.
TEST(Integrators, ReducedAndCanonicalTrajectoriesAgree) {
  const Ic ic = shell_state(9);
  const double t = 2.0, h = 1e-3;
  const Eigen::VectorXd reduced = state_at("rk4", h, t, ic);
  const Eigen::VectorXd canonical = canonical_rk4(ic, h, t);
  EXPECT_LT((reduced - canonical).lpNorm<Eigen::Infinity>(), 1e-10);
  // And the two differ from the initial state (the test is not vacuous).
  Eigen::VectorXd y0(14);
  y0 << ic.q, ic.p;
  EXPECT_GT((reduced - y0).lpNorm<Eigen::Infinity>(), 1e-2);
}

TEST(Integrators, AvfQuadratureIsExactForDegree15) {
  // int_0^1 s^15 ds = 1/16 and int_0^1 s^16 ds differs from the rule (degree 16 not exact).
  double s15 = 0.0, s16 = 0.0;
  for (int k = 0; k < 4; ++k) {
    for (const double sgn : {-1.0, 1.0}) {
      const double s = 0.5 * (1.0 + sgn * AvfGradient::kX[k]);
      s15 += 0.5 * AvfGradient::kW[k] * std::pow(s, 15);
      s16 += 0.5 * AvfGradient::kW[k] * std::pow(s, 16);
    }
  }
  EXPECT_NEAR(s15, 1.0 / 16.0, 1e-15);
  EXPECT_GT(std::abs(s16 - 1.0 / 17.0), 1e-12);
}

TEST(Integrators, NewtonFailureIsReportedNotHidden) {
  const Ic ic = shell_state(1);
  IntegratorChoice c;
  c.integrator = "gonzalez";
  c.h = 0.05;
  c.newton_max_iter = 1;  // one iteration cannot reach 1e-14
  auto st = make_stepper_for(Sys(3), c);
  st->set_state(ic.q, ic.p);
  const AdvanceResult r = st->advance(10);
  EXPECT_EQ(r.status, StepStatus::kNewtonFailed);
  EXPECT_EQ(r.steps_done, 0);
}

// A system without a reduced form: the discrete gradient methods must be refused with the
// reason, si_dla (constant mass) still applies and rk4 runs on the canonical index-1 equations.
// CanonicalOnly is not in the catalogue, so only the applicability rules
// (nhsim/integrators/registry.hpp) are asked about it.
struct CanonicalOnly : ChaoticQuartic<3> {
  static constexpr bool kHasReducedForm = false;
  using ChaoticQuartic<3>::ChaoticQuartic;
};

TEST(Integrators, RegistryRefusesPairsThatDoNotApply) {
  const auto why = integrator_not_applicable<CanonicalOnly>("gonzalez");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "gonzalez needs a reduced form on D* (adapted frame)");
  EXPECT_EQ(applicable_integrators<CanonicalOnly>(),
            (std::vector<std::string>{"si_dla", "rk4", "gonzalez_f", "i_dla", "gonzalez_r",
                                      "gonzalez_r_fd", "spark2", "dla", "nh_rattle",
                                      "nh_rattle_projected", "rk2", "avf_f"}));
  // The same refusal through a catalogue model: the gearbox has no reduced form.
  const auto gearbox =
      find_system("gearbox")->make(complete_parameters(*find_system("gearbox"), {}));
  IntegratorChoice c;
  c.integrator = "avf";
  c.h = 0.1;
  try {
    gearbox->make_stepper(c);
    ADD_FAILURE() << "avf on the gearbox was not refused";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "integrator");
    EXPECT_EQ(e.reason(), "avf needs a reduced form on D* (adapted frame)");
  }
  c.integrator = "si_dla";
  EXPECT_NE(gearbox->make_stepper(c), nullptr);
}

TEST(Integrators, ApplicabilityIsDeclared) {
  EXPECT_FALSE(integrator_not_applicable<Sys>("gonzalez").has_value());
  EXPECT_FALSE(integrator_not_applicable<Sys>("si_dla").has_value());
  const auto ids = applicable_integrators<Sys>();
  EXPECT_EQ(
      ids, (std::vector<std::string>{"gonzalez", "avf", "si_dla", "rk4", "itoh_abe", "midpoint",
                                     "gonzalez_f", "i_dla", "gonzalez_r", "gonzalez_r_fd", "spark2",
                                     "dla", "nh_rattle", "nh_rattle_projected", "rk2", "avf_f"}));
  // The chaotic quartic system has no explicit solution: `exact` is refused with the reason.
  const auto why = integrator_not_applicable<Sys>("exact");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "exact needs an explicit solution of the equations of motion (exact flow) in reduced "
            "coordinates");
}

}  // namespace
}  // namespace nhsim

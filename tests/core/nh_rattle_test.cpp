// nh_rattle ([Kobilarov2010] eq. (10)), nh_rattle_projected (eq. (14)-(16)) and the rk2 baseline:
// the two RATTLE forms agree to round-off (with controls), the constraint holds at every step,
// the multiplier of (10e) is the one of the continuous problem, and rk2 drifts off the
// constraint.
#include "nhsim/integrators/nh_rattle.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "nhsim/ensemble.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/snakeboard.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

Snakeboard controlled_board() {
  Snakeboard sys(1.0, 1.0, 0.5, 2.0);
  ControlSpec c0, c1;
  c0.kind = ControlSpec::Kind::kTable;
  c0.times = {0.0, 1.0, 3.0};
  c0.values = {0.0, 1.0, -0.5};
  c1.kind = ControlSpec::Kind::kConstant;
  c1.value = 0.2;
  sys.set_controls({c0, c1});
  return sys;
}

TEST(NhRattle, ProjectedFormEqualsMultiplierFormWithControls) {
  const Snakeboard sys = controlled_board();
  Snakeboard::VecQ q, p;
  sys.state_from_shape(0.3, 0.4, 0.2, 0.1, -0.2, 0.8, -0.1, -0.5, q, p);
  auto a = test::make_stepper(sys, "nh_rattle", 0.05);
  auto b = test::make_stepper(sys, "nh_rattle_projected", 0.05);
  a->set_state(q, p);
  b->set_state(q, p);
  Eigen::VectorXd qa(5), pa(5), qb(5), pb(5);
  for (int k = 0; k < 100; ++k) {
    ASSERT_EQ(a->advance(1).status, StepStatus::kOk);
    ASSERT_EQ(b->advance(1).status, StepStatus::kOk);
    a->get_state(qa, pa);
    b->get_state(qb, pb);
    EXPECT_LT((qa - qb).norm() + (pa - pb).norm(), 1e-12) << k;
    EXPECT_LT(a->constraint_residual(), 1e-14) << k;
    EXPECT_LT(b->constraint_residual(), 1e-14) << k;
  }
  // The controls act: the uncontrolled board ends elsewhere.
  Snakeboard free_board(1.0, 1.0, 0.5, 2.0);
  auto c = test::make_stepper(free_board, "nh_rattle", 0.05);
  c->set_state(q, p);
  c->advance(100);
  Eigen::VectorXd qc(5), pc(5);
  c->get_state(qc, pc);
  EXPECT_GT((qc - qa).norm(), 1e-2);
}

TEST(NhRattle, HalfStepEnergyExactForTheFreeSleighAndSecondOrderWithAPotential) {
  // V = 0, no controls: the half-step energy 1/2 p_k+1/2^T M^-1 p_k+1/2 is preserved to
  // round-off for any h (§6.1 after eq. (33), Theorem 1), p_k+1/2 = p_k - h/2 mu^T lambda_k.
  const ChaplyginSleighCom sleigh(2.0, 0.5, 0.3);
  ChaplyginSleighCom::VecQ q, p;
  sleigh.state_from_velocities(0.1, 0.0, 0.0, 2.0, -0.7, q, p);
  for (double h : {0.01, 0.3}) {
    NhRattleMethod<ChaplyginSleighCom> m(sleigh, h, NewtonSettings{});
    m.set_canonical(q, p);
    double residual = 0.0, e1 = 0.0, worst = 0.0;
    for (int k = 0; k < 2000; ++k) {
      m.step(residual);
      ChaplyginSleighCom::VecQ qk, pk, v;
      ChaplyginSleighCom::MatCQ mu;
      m.canonical(qk, pk);
      sleigh.constraint(qk, mu);
      const ChaplyginSleighCom::VecQ ph = pk - 0.5 * h * mu.transpose() * m.lambda();
      sleigh.inv_mass_times(qk, ph, v);
      const double e = 0.5 * ph.dot(v);
      if (k == 0) e1 = e;
      worst = std::max(worst, std::abs(e - e1) / e1);
      EXPECT_LT(sleigh.constraint_residual(qk, pk), 1e-14);
    }
    EXPECT_LT(worst, 1e-13) << h;
  }
  // With a potential (chaotic quartic, [Celledoni2019] §4.1) the method is second order and keeps
  // the constraint.
  const ChaoticQuartic<3> quartic(3);
  const test::Ic ic = test::chaotic_shell_state(0);
  const Eigen::VectorXd ref = test::state_at(quartic, "rk4", 1.0 / 1024, 10.0, ic);
  for (const char* id : {"nh_rattle", "nh_rattle_projected"}) {
    EXPECT_NEAR(test::observed_order(quartic, id, 0.02, ic, ref), 2.0, 0.15) << id;
  }
  const Eigen::VectorXd z = test::state_at(quartic, "nh_rattle", 0.02, 10.0, ic);
  EXPECT_LT(quartic.constraint_residual(z.head(7), z.tail(7)), 1e-12);
}

TEST(Rk2, DriftsOffTheConstraint) {
  const ChaplyginSleighCom sleigh(1.0, 1.0, 1.0);
  ChaplyginSleighCom::VecQ q, p;
  sleigh.state_from_velocities(0.0, 0.0, 0.0, 0.5, -1.0, q, p);
  auto st = test::make_stepper(sleigh, "rk2", 0.2);
  st->set_state(q, p);
  st->advance(100);
  EXPECT_GT(st->constraint_residual(), 1e-5);
}

// chaotic_quartic with n != 3 runs on dynamic-size types: the [Kobilarov2010] methods must size
// their workspaces from the system (they wrote into empty vectors before), keep the constraint and
// agree with the fixed-size instantiation for n = 3 bit for bit.
TEST(NhRattle, DynamicSizeChaoticSystem) {
  const ChaoticQuartic<Eigen::Dynamic> dyn(3);
  const ChaoticQuartic<3> fixed(3);
  const test::Ic ic = test::chaotic_shell_state(0);
  for (const char* id : {"nh_rattle", "nh_rattle_projected"}) {
    const Eigen::VectorXd a = test::state_at(dyn, id, 0.05, 5.0, ic);
    const Eigen::VectorXd b = test::state_at(fixed, id, 0.05, 5.0, ic);
    EXPECT_LT((a - b).lpNorm<Eigen::Infinity>(), 1e-12) << id;
    EXPECT_LT(dyn.constraint_residual(a.head(7), a.tail(7)), 1e-13) << id;
  }
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 4.0}};
  s.initial_conditions = EnergyShellGenerator{};
  std::get<EnergyShellGenerator>(s.initial_conditions).energy = 3.06;
  std::get<EnergyShellGenerator>(s.initial_conditions).seed = 5;
  std::get<EnergyShellGenerator>(s.initial_conditions).count = 3;
  for (const char* id : {"nh_rattle", "nh_rattle_projected"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 20;
    s.integrators.push_back(c);
  }
  s.t_final = 5.0;
  const EnsembleResult r = run_ensemble(s);
  for (const auto& ir : r.integrators) {
    EXPECT_EQ(ir.trajectories_ok, 3) << ir.choice.integrator;
    for (const auto& o : ir.observables) {
      if (o.observable != "constraint_residual") continue;
      for (double m : o.max) EXPECT_LT(m, 1e-13) << ir.choice.integrator;
    }
  }
}

}  // namespace
}  // namespace nhsim

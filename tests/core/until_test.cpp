// Runs to a requested precision (EnsembleSpec::until): the run stops at the first round boundary
// where every target holds, with the bits of a plain run over those trajectories, on any
// thread count; the cap is reported, not an error; targets are checked field by field.
#include <gtest/gtest.h>

#include <cmath>

#include "nhsim/ensemble.hpp"
#include "result_compare.hpp"

namespace nhsim {
namespace {

EnsembleSpec until_spec(std::int64_t cap, double relative) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 11;
  g.count = cap;
  s.initial_conditions = g;
  for (const char* id : {"rk4", "si_dla"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 20;
    s.integrators.push_back(c);
  }
  s.t_final = 20.0;
  PrecisionTarget b;
  b.integrator = "si_dla";
  b.statistic = PrecisionTarget::Statistic::kGrowthDrift;
  b.relative_stderr = relative;
  PrecisionTarget v;
  v.integrator = "si_dla";
  v.statistic = PrecisionTarget::Statistic::kFinalVariance;
  v.relative_stderr = relative;
  s.until.targets = {b, v};
  return s;
}

TEST(Until, StopsAtTheFirstRoundWhereEveryTargetHoldsWithAPlainRunsBits) {
  const EnsembleSpec spec = until_spec(20000, 0.1);
  RunOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const EnsembleResult r1 = run_ensemble(spec, one);
  const EnsembleResult r2 = run_ensemble(spec, two);
  test::expect_bit_identical(r1, r2);
  ASSERT_TRUE(r1.until.requested);
  ASSERT_TRUE(r1.until.reached);
  const std::int64_t m = r1.until.trajectories_used;
  EXPECT_EQ(r2.until.trajectories_used, m);
  EXPECT_EQ(r1.until.trajectories_cap, 20000);
  EXPECT_EQ(r1.n_trajectories, m);
  EXPECT_EQ(m % kUntilRound, 0);
  EXPECT_GT(m, kUntilRound);  // more than one round: the check is not vacuous
  EXPECT_LT(m, 20000);
  ASSERT_EQ(r1.until.relative_stderr.size(), 2U);
  for (double r : r1.until.relative_stderr) EXPECT_LE(r, 0.1);
  EXPECT_EQ(r1.integrators[1].trajectories_ok + r1.integrators[1].trajectories_failed, m);

  // The same bits as a plain run of the first m trajectories...
  EnsembleSpec plain = spec;
  plain.until = {};
  std::get<EnergyShellGenerator>(plain.initial_conditions).count = m;
  const EnsembleResult reference = run_ensemble(plain, two);
  test::expect_bit_identical(r1, reference);
  // ... and one round fewer did not reach the targets: the first boundary was taken.
  std::vector<double> before;
  const PartialResult shorter = run_partial(spec, {0, m - kUntilRound}, two);
  EXPECT_FALSE(until_reached(spec, shorter, &before));
  EXPECT_TRUE(before[0] > 0.1 || before[1] > 0.1);
}

TEST(Until, TheCapStopsARunThatCannotReachItsTarget) {
  const EnsembleSpec spec = until_spec(700, 0.001);  // not a multiple of the round
  const EnsembleResult r = run_ensemble(spec);
  EXPECT_TRUE(r.until.requested);
  EXPECT_FALSE(r.until.reached);
  EXPECT_EQ(r.until.trajectories_used, 700);
  EXPECT_EQ(r.n_trajectories, 700);
  EXPECT_GT(r.until.relative_stderr[0], 0.001);
}

TEST(Until, TargetsAreCheckedFieldByField) {
  const auto field_of = [](const EnsembleSpec& s) {
    try {
      validate(s);
    } catch (const SpecError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  EnsembleSpec s = until_spec(1000, 0.05);
  EXPECT_EQ(field_of(s), "accepted");
  s.until.targets[1].integrator = "gonzalez";
  EXPECT_EQ(field_of(s), "until.targets[1].integrator");
  s = until_spec(1000, 0.05);
  s.integrators.push_back(s.integrators[1]);  // si_dla twice: ambiguous
  EXPECT_EQ(field_of(s), "until.targets[0].integrator");
  s = until_spec(1000, 0.05);
  s.until.targets[0].observable = "q[0]";
  EXPECT_EQ(field_of(s), "until.targets[0].observable");
  s = until_spec(1000, 0.05);
  s.until.targets[0].statistic = PrecisionTarget::Statistic::kUnspecified;
  EXPECT_EQ(field_of(s), "until.targets[0].statistic");
  for (double bad : {0.0, 1.0, -0.1, std::nan("")}) {
    s = until_spec(1000, 0.05);
    s.until.targets[1].relative_stderr = bad;
    EXPECT_EQ(field_of(s), "until.targets[1].relative_stderr") << bad;
  }
}

}  // namespace
}  // namespace nhsim

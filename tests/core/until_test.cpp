// Runs to a requested precision (EnsembleSpec::until): the run plans its count from a pilot and
// stops at the first round boundary past it where every target holds, with the bits of a plain
// run over those trajectories, on any thread count; the cap is reported, not an error; targets
// are checked field by field.
#include <gtest/gtest.h>

#include <algorithm>
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

/// The count until_planned_count() should plan for `spec`, from the pilot run as a spec of its
/// own: the cap's last round as explicit states (with the same batches: the cap is a multiple
/// of 32), whose relative standard errors until_reached() gives.
std::int64_t expected_plan(const EnsembleSpec& spec) {
  const std::int64_t n = std::get<EnergyShellGenerator>(spec.initial_conditions).count;
  EnsembleSpec drawn = spec;
  for (std::int64_t i = n - kUntilRound; i < n; ++i)
    drawn.outputs.initial_states.indices.push_back(i);
  const PartialResult last_round = run_partial(drawn, {n - kUntilRound, n});
  ExplicitStates pilot_states;
  for (const TrajectoryState& s : last_round.choices[0].initial_states) {
    pilot_states.states.push_back(s.state);
  }
  EnsembleSpec pilot = spec;
  pilot.initial_conditions = pilot_states;
  std::vector<double> relative;
  until_reached(pilot, run_partial(pilot, {0, kUntilRound}), &relative);
  double rounds = kUntilMinRounds;
  for (std::size_t k = 0; k < relative.size(); ++k) {
    const double ratio = relative[k] / spec.until.targets[k].relative_stderr;
    rounds = std::max(rounds, kUntilPlanInflation * ratio * ratio);
  }
  return std::min(n, static_cast<std::int64_t>(std::ceil(rounds)) * kUntilRound);
}

TEST(Until, RunsThePlannedCountThenStopsAtTheFirstRoundWhereEveryTargetHolds) {
  const EnsembleSpec spec = until_spec(20000, 0.1);
  const std::int64_t planned = until_planned_count(Problem(spec));
  EXPECT_EQ(planned, expected_plan(spec));
  EXPECT_GT(planned, kUntilMinRounds * kUntilRound);  // the pilot decided: not vacuous
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
  EXPECT_EQ(r1.until.trajectories_planned, planned);
  EXPECT_EQ(r2.until.trajectories_planned, planned);
  EXPECT_EQ(r1.n_trajectories, m);
  EXPECT_EQ(m % kUntilRound, 0);
  EXPECT_GE(m, planned);
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
  // ... and past the planned count, one round fewer did not reach the targets.
  if (m > planned) {
    std::vector<double> before;
    const PartialResult shorter = run_partial(spec, {0, m - kUntilRound}, two);
    EXPECT_FALSE(until_reached(spec, shorter, &before));
    EXPECT_TRUE(before[0] > 0.1 || before[1] > 0.1);
  }
}

TEST(Until, ACapOfAtMostTheFewestRoundsRunsWhole) {
  EnsembleSpec spec = until_spec(2 * kUntilRound, 0.5);
  spec.until.targets = {spec.until.targets[1]};                           // the final variance
  EXPECT_TRUE(until_reached(spec, run_partial(spec, {0, kUntilRound})));  // one round would do
  const EnsembleResult r = run_ensemble(spec);
  EXPECT_TRUE(r.until.reached);
  EXPECT_EQ(r.until.trajectories_used, 2 * kUntilRound);
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

// Sweeps: a grid of cases in one job gives each case the bits of the job it would be alone,
// over any split into partial results; the cost is the cases' sum; bad sweeps are named.
#include "nhsim/sweep.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "result_compare.hpp"

namespace nhsim {
namespace {

EnsembleSpec base_spec() {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator shell;
  shell.energy = 3.06;
  shell.seed = 11;
  shell.count = 21;  // not a multiple of the block size
  s.initial_conditions = shell;
  for (const char* id : {"si_dla", "gonzalez"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 8;
    s.integrators.push_back(c);
  }
  s.t_final = 2.0;
  s.outputs.initial_states.all = true;
  return s;
}

constexpr double kN[] = {2, 3, 4};
constexpr double kH[] = {0.1, 0.05, 0.04, 0.025};
constexpr double kEvery[] = {4, 8, 10, 16};

/// 3 x 4: the system's size n, and h with sample_every zipped so that the samples keep their
/// times.
EnsembleSpec sweep_spec() {
  EnsembleSpec s = base_spec();
  s.sweep = {SweepAxis{{{"parameters.n", {kN[0], kN[1], kN[2]}}}},
             SweepAxis{{{"h", {kH[0], kH[1], kH[2], kH[3]}},
                        {"sample_every", {kEvery[0], kEvery[1], kEvery[2], kEvery[3]}}}}};
  return s;
}

/// Case (i, j) written out by hand, as a job of its own would send it.
EnsembleSpec separate_job(int i, int j) {
  EnsembleSpec s = base_spec();
  s.parameters["n"] = kN[i];
  for (IntegratorChoice& c : s.integrators) {
    c.h = kH[j];
    c.sample_every = static_cast<std::int64_t>(kEvery[j]);
  }
  return s;
}

TEST(Sweep, ThreeByFourCasesGiveTheBitsOfTwelveSeparateJobs) {
  const Problem sweep(sweep_spec());
  ASSERT_EQ(sweep.cases().size(), 12u);
  EXPECT_EQ(choice_count(sweep.spec()), 24);
  // Two shards, merged: the one mechanism behind checkpoints, shards and merges.
  PartialResult partial = run_partial(sweep, {0, 9});
  merge_partial(partial, run_partial(sweep, {9, 21}));
  const EnsembleResult result = finish(sweep, std::move(partial));
  ASSERT_EQ(result.cases.size(), 12u);
  EXPECT_TRUE(result.integrators.empty());
  EXPECT_EQ(result.n_trajectories, 21);
  EXPECT_EQ(result.parameters.count("n"), 0u);  // swept, so per case
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      const SweepCaseResult& c = result.cases[static_cast<std::size_t>(4 * i + j)];
      const std::string where = "case " + std::to_string(4 * i + j);
      ASSERT_EQ(c.values.size(), 3u) << where;
      EXPECT_EQ(c.values[0].field, "parameters.n");
      EXPECT_EQ(c.values[0].value, kN[i]);
      EXPECT_EQ(c.values[1].field, "h");
      EXPECT_EQ(c.values[1].value, kH[j]);
      EXPECT_EQ(c.values[2].field, "sample_every");
      EXPECT_EQ(c.values[2].value, kEvery[j]);
      const EnsembleResult alone = run_ensemble(separate_job(i, j));
      test::expect_bit_identical(c.result, alone);
      EXPECT_EQ(c.result.parameters.at("n"), kN[i]) << where;
      ASSERT_EQ(c.result.integrators.size(), 2u) << where;
      EXPECT_EQ(c.result.integrators[0].trajectories_ok, 21) << where;
      EXPECT_EQ(c.result.integrators[1].choice.h, kH[j]) << where;
      EXPECT_GT(c.result.integrators[0].observables[0].variance.back(), 0.0) << where;
    }
  }
}

TEST(Sweep, AnHSweepSharesTheInitialStatesAndReportsProgressToTheEnd) {
  EnsembleSpec s = base_spec();
  s.sweep = {SweepAxis{{{"h", {0.1, 0.05}}}}};
  std::int64_t last_done = -1, last_total = -1;
  bool backwards = false;
  RunOptions options;
  options.threads = 2;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    backwards = backwards || done < last_done;
    last_done = done;
    last_total = total;
  };
  const EnsembleResult r = run_ensemble(s, options);
  EXPECT_FALSE(backwards);
  EXPECT_EQ(last_total, 21 * 2 * 2);
  EXPECT_EQ(last_done, last_total);
  ASSERT_EQ(r.cases.size(), 2u);
  // The integrator setting does not enter the draw: the same states (common random numbers).
  ASSERT_EQ(r.cases[0].result.initial_states.size(), 21u);
  test::expect_bit_identical(r.cases[0].result.initial_states, r.cases[1].result.initial_states,
                             "initial states");
}

TEST(Sweep, CasesReferToOneCopyOfTheExplicitStates) {
  EnsembleSpec drawn = base_spec();
  std::get<EnergyShellGenerator>(drawn.initial_conditions).count = 2000;
  drawn.t_final = 0.1;
  ExplicitStates states;
  for (const TrajectoryState& t : run_ensemble(drawn).initial_states) {
    states.states.push_back(t.state);
  }
  EnsembleSpec s = base_spec();
  s.initial_conditions = states;
  s.outputs.initial_states.all = false;
  std::vector<double> hs;
  for (int k = 20; k < 220; ++k) hs.push_back(2.0 / k);  // t_final = 2 in k steps
  s.sweep = {SweepAxis{{{"h", hs}}}};
  // About 0.4 MB of states: 200 copies would be 80 MB.
  const std::size_t before = mallinfo2().uordblks;
  const Problem sweep(s);
  const std::size_t grown = mallinfo2().uordblks - before;
  ASSERT_EQ(sweep.cases().size(), 200u);
  for (const Problem::Case& c : sweep.cases()) {
    ASSERT_TRUE(
        std::get<ExplicitStates>(c.problem.spec().initial_conditions).states.shares(states.states));
  }
  EXPECT_LT(grown, 8u << 20) << "bytes allocated for the 200 cases";
  // A change to one case's states is its own (copy on write).
  EnsembleSpec changed = sweep.cases()[0].problem.spec();
  std::get<ExplicitStates>(changed.initial_conditions).states.edit()[0].p[0] += 1;
  EXPECT_FALSE(std::get<ExplicitStates>(changed.initial_conditions).states.shares(states.states));
  EXPECT_NE(states.states[0].p[0],
            std::get<ExplicitStates>(changed.initial_conditions).states[0].p[0]);
}

TEST(Sweep, AnAbandonedCheckStopsBeforeTheNextCase) {
  int asked = 0;
  try {
    (void)Problem(sweep_spec(), [&] { return ++asked == 3; });
    ADD_FAILURE() << "not abandoned";
  } catch (const Abandoned& e) {
    EXPECT_STREQ(e.what(), "abandoned after 2 of 12 sweep cases were checked");
  }
  EXPECT_EQ(asked, 3);
  asked = 0;
  EXPECT_EQ(Problem(sweep_spec(), [&] { return ++asked > 12; }).cases().size(), 12u);
  EXPECT_EQ(asked, 12);  // once per case
}

TEST(Sweep, ACancelStopsEveryCaseAndCountsTheRest) {
  // Cancelled from the first progress report on: the first case's first block may finish, every
  // later trajectory of every case counts as cancelled, and no run is lost.
  std::atomic<bool> cancel{false};
  RunOptions options;
  options.threads = 1;
  options.cancel = &cancel;
  options.progress = [&](std::int64_t, std::int64_t) { cancel = true; };
  const EnsembleResult r = run_ensemble(sweep_spec(), options);
  EXPECT_TRUE(r.cancelled);
  ASSERT_EQ(r.cases.size(), 12u);
  std::int64_t cancelled = 0;
  for (const SweepCaseResult& c : r.cases) {
    for (const IntegratorResult& ir : c.result.integrators) {
      EXPECT_EQ(ir.trajectories_ok + ir.trajectories_failed + ir.trajectories_cancelled, 21);
      cancelled += ir.trajectories_cancelled;
    }
  }
  EXPECT_GE(cancelled, 21 * 2 * 11);  // at most the first case ran anything
}

TEST(Sweep, TheCostIsTheSumOfTheCases) {
  const Problem sweep(sweep_spec());
  CostEstimate sum;
  for (const Problem::Case& c : sweep.cases()) {
    const CostEstimate part = estimate_cost(c.problem);
    sum.trajectory_steps += part.trajectory_steps;
    sum.cells += part.cells;
    sum.result_bytes += part.result_bytes;
    sum.statistics_bytes += part.statistics_bytes;
    sum.generator_draws += part.generator_draws;
  }
  const CostEstimate cost = estimate_cost(sweep);
  EXPECT_EQ(cost.trajectories, 21);
  EXPECT_EQ(cost.trajectory_steps, sum.trajectory_steps);
  EXPECT_EQ(cost.cells, sum.cells);
  EXPECT_EQ(cost.result_bytes, sum.result_bytes);
  EXPECT_EQ(cost.statistics_bytes, sum.statistics_bytes);
  EXPECT_EQ(cost.generator_draws, sum.generator_draws);
  // 21 trajectories x 2 choices x 3 sizes x (20 + 40 + 50 + 80) steps
  EXPECT_EQ(cost.trajectory_steps, 21.0 * 2 * 3 * (20 + 40 + 50 + 80));
}

void expect_refused(const EnsembleSpec& spec, const std::string& field, const std::string& text) {
  try {
    validate(spec);
    ADD_FAILURE() << "accepted; expected " << field;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Sweep, BadSweepsAreRefusedNamingTheField) {
  EnsembleSpec s = base_spec();
  s.sweep = {SweepAxis{{{"mass", {1, 2}}}}};
  expect_refused(s, "sweep[0].mass", "not a field a sweep can set; these can: parameters.NAME");
  s.sweep = {SweepAxis{{{"h", {0.1, 0.05}}, {"sample_every", {4}}}}};
  expect_refused(s, "sweep[0].sample_every", "1 values, h of the same axis has 2");
  s.sweep = {SweepAxis{{{"sample_every", {4.5}}}}};
  expect_refused(s, "sweep[0].sample_every", "values[0] is not a whole number");
  s.sweep = {SweepAxis{{{"h", {0.1}}}}, SweepAxis{{{"integrators[1].h", {0.05}}}}};
  expect_refused(s, "sweep[1].integrators[1].h", "integrators[1].h is set by another field");
  s.sweep = {SweepAxis{{{"integrators[1:3].h", {0.05}}}}};
  expect_refused(s, "sweep[0].integrators[1:3].h", "not a non-empty range within the spec's 2");
  s.sweep = {SweepAxis{{{"controls[0].amplitude", {1}}}}};
  expect_refused(s, "sweep[0].controls[0].amplitude", "the spec has 0 controls");
  s.sweep = {SweepAxis{{{"initial_conditions.velocity_perturbation.v_std", {1}}}}};
  expect_refused(s, "sweep[0].initial_conditions.velocity_perturbation.v_std",
                 "not a velocity perturbation");
  s.sweep = {SweepAxis{}};
  expect_refused(s, "sweep[0]", "at least one field");
  std::vector<double> many(40, 0.05);
  s.sweep = {SweepAxis{{{"h", many}}}, SweepAxis{{{"t_final", many}}}};
  expect_refused(s, "sweep", "more than 1000 cases");
  // A user-defined system compiles once per case: at most 64 cases.
  EnsembleSpec custom = s;
  custom.system.clear();
  custom.parameters.clear();
  custom.custom_system = CustomSystemSpec{};
  custom.sweep = {SweepAxis{{{"h", std::vector<double>(65, 0.05)}}}};
  expect_refused(custom, "sweep", "65 cases; a sweep of a user-defined system has at most 64");
  // A case that is not a valid spec: the case's field, and which case.
  s.sweep = {SweepAxis{{{"parameters.n", {3, 1000}}}}};
  expect_refused(s, "parameters.n", "(in sweep case 1: parameters.n = 1000)");
  s.sweep = {SweepAxis{{{"h", {0.05, 0.3}}}}};
  expect_refused(s, "integrators[0].h", "(in sweep case 1: h = 0.3)");
  s.sweep = {SweepAxis{{{"h", {0.05}}}}};
  s.until.targets = {
      PrecisionTarget{"si_dla", "energy_error", PrecisionTarget::Statistic::kFinalVariance, 0.1}};
  expect_refused(s, "until", "not with a sweep");
}

TEST(Sweep, SetsEveryKindOfField) {
  EnsembleSpec s;
  s.system = "snakeboard";
  s.initial_conditions = ExplicitStates{{CanonicalState{{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}}};
  ControlSpec sine, constant;
  sine.kind = ControlSpec::Kind::kSine;
  sine.amplitude = 1;
  sine.omega = 2;
  constant.kind = ControlSpec::Kind::kConstant;
  constant.value = 0.5;
  s.controls = {sine, constant};
  s.integrators = {IntegratorChoice{.integrator = "rk2", .h = 0.1},
                   IntegratorChoice{.integrator = "nh_rattle", .h = 0.1},
                   IntegratorChoice{.integrator = "rdp_exp", .h = 0.1}};
  s.t_final = 1;
  s.sweep = {SweepAxis{{{"controls[0].amplitude", {0.5, 2}}, {"controls[1].value", {1, 3}}}},
             SweepAxis{{{"integrators[1:3].newton_tol", {1e-10}}, {"t_final", {2}}}}};
  const std::vector<SweepCase> cases = sweep_cases(s);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].spec.controls[0].amplitude, 2);
  EXPECT_EQ(cases[1].spec.controls[1].value, 3);
  EXPECT_EQ(cases[1].spec.controls[0].omega, 2);  // unswept fields stay
  EXPECT_EQ(cases[0].spec.integrators[0].newton_tol, 0);
  EXPECT_EQ(cases[0].spec.integrators[1].newton_tol, 1e-10);
  EXPECT_EQ(cases[0].spec.integrators[2].newton_tol, 1e-10);
  EXPECT_EQ(cases[0].spec.t_final, 2);
  EXPECT_TRUE(cases[0].spec.sweep.empty());
  EXPECT_EQ(sweep_case_count(s), 2);
}

}  // namespace
}  // namespace nhsim

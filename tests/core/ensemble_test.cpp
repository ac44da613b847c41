// The ensemble runner: determinism across thread counts, failures counted and reported,
// validation naming the field, and the variance experiment of [Celledoni2019] Fig. 2 in small.
#include "nhsim/ensemble.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>
#include <thread>

#include "nhsim/catalogue.hpp"
#include "result_compare.hpp"

namespace nhsim {
namespace {

EnsembleSpec small_spec() {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  s.initial_conditions = EnergyShellGenerator{};
  std::get<EnergyShellGenerator>(s.initial_conditions).energy = 3.06;
  std::get<EnergyShellGenerator>(s.initial_conditions).seed = 7;
  std::get<EnergyShellGenerator>(s.initial_conditions).count =
      21;  // not a multiple of the block size
  for (const char* id : {"gonzalez", "avf", "si_dla", "rk4"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 10;
    s.integrators.push_back(c);
  }
  s.t_final = 5.0;
  return s;
}

TEST(Ensemble, BitIdenticalForOneAndTwoThreads) {
  const EnsembleSpec s = small_spec();
  RunOptions o1, o2;
  o1.threads = 1;
  o2.threads = 2;
  const EnsembleResult r1 = run_ensemble(s, o1);
  const EnsembleResult r2 = run_ensemble(s, o2);
  test::expect_bit_identical(r1, r2);
  // Non-vacuous: statistics were actually gathered.
  EXPECT_EQ(r1.integrators[2].trajectories_ok, 21);
  EXPECT_GT(r1.integrators[2].observables[0].variance.back(), 0.0);

  // Enough trajectories that the quantile sketches compress (> 400 values per cell): the
  // quantiles stay bit-identical, ordered and inside [min, max].
  EnsembleSpec big = small_spec();
  std::get<EnergyShellGenerator>(big.initial_conditions).count = 451;
  big.integrators = {big.integrators[2]};  // si_dla: energy error spreads out
  const EnsembleResult b1 = run_ensemble(big, o1);
  const EnsembleResult b2 = run_ensemble(big, o2);
  test::expect_bit_identical(b1, b2);
  ASSERT_EQ(b1.integrators[0].trajectories_ok, 451);
  const SeriesStats& e = b1.integrators[0].observables[0];
  ASSERT_EQ(e.q05.size(), e.mean.size());
  ASSERT_EQ(e.q50.size(), e.mean.size());
  ASSERT_EQ(e.q95.size(), e.mean.size());
  for (std::size_t k = 0; k < e.mean.size(); ++k) {
    EXPECT_LE(e.min[k], e.q05[k]);
    EXPECT_LE(e.q05[k], e.q50[k]);
    EXPECT_LE(e.q50[k], e.q95[k]);
    EXPECT_LE(e.q95[k], e.max[k]);
  }
  EXPECT_LT(e.q05.back(), e.q95.back());  // a real spread, not all equal
}

// From 1024 trajectories per thread on, each thread but one adds its blocks' samples to cells of
// its own, merged at the end (BlockSampleSink): the same bits as one thread's.
TEST(Ensemble, BitIdenticalWhenThreadsKeepCellsOfTheirOwn) {
  EnsembleSpec s = small_spec();
  std::get<EnergyShellGenerator>(s.initial_conditions).count = 3 * 1024 + 5;
  s.integrators = {s.integrators[2]};  // si_dla
  s.t_final = 1.0;
  RunOptions one;
  one.threads = 1;
  const EnsembleResult r1 = run_ensemble(s, one);
  ASSERT_EQ(r1.integrators[0].trajectories_ok, 3 * 1024 + 5);
  for (int threads : {2, 3}) {
    RunOptions o;
    o.threads = threads;
    test::expect_bit_identical(r1, run_ensemble(s, o));
  }
}

TEST(Ensemble, SampleTimesAndCountsAddUp) {
  EnsembleSpec spec = small_spec();
  spec.integrators[1].newton_tol = 1e-13;
  const EnsembleResult r = run_ensemble(spec);
  // The result reports the Newton settings used: the default where the spec said 0.
  EXPECT_EQ(r.integrators[0].choice.newton_tol, 1e-14);
  EXPECT_EQ(r.integrators[0].choice.newton_max_iter, 50);
  EXPECT_EQ(r.integrators[1].choice.newton_tol, 1e-13);
  EXPECT_EQ(r.integrators[3].choice.newton_tol, 0.0);  // rk4: no Newton solve
  for (const auto& ir : r.integrators) {
    EXPECT_EQ(ir.n_steps, 100);
    ASSERT_EQ(ir.sample_times.size(), 11u);
    EXPECT_DOUBLE_EQ(ir.sample_times.back(), 5.0);
    EXPECT_EQ(ir.trajectories_ok + ir.trajectories_failed + ir.trajectories_cancelled, 21);
    EXPECT_EQ(ir.steps_completed, 21 * 100);
    EXPECT_EQ(ir.observables[0].observable, "energy_error");
    EXPECT_EQ(ir.observables[0].count[0], 21);
    EXPECT_EQ(ir.observables[0].mean[0], 0.0);  // H(0) - H(0)
  }
  // Discrete gradients: energy error at round-off; si_dla: not.
  auto max_abs = [](const SeriesStats& s) {
    double m = 0.0;
    for (std::size_t k = 0; k < s.min.size(); ++k) {
      m = std::max({m, std::abs(s.min[k]), std::abs(s.max[k])});
    }
    return m;
  };
  EXPECT_LT(max_abs(r.integrators[0].observables[0]), 1e-13);
  EXPECT_LT(max_abs(r.integrators[1].observables[0]), 1e-13);
  EXPECT_GT(max_abs(r.integrators[2].observables[0]), 1e-6);
  for (const auto& ir : r.integrators) EXPECT_LT(max_abs(ir.observables[2]), 1e-13);
}

TEST(Ensemble, FailedTrajectoriesAreCountedAndReported) {
  EnsembleSpec s = small_spec();
  s.integrators.resize(1);
  s.integrators[0].newton_max_iter = 1;  // gonzalez cannot converge in one iteration
  const EnsembleResult r = run_ensemble(s);
  const auto& ir = r.integrators[0];
  EXPECT_EQ(ir.trajectories_ok, 0);
  EXPECT_EQ(ir.trajectories_failed, 21);
  ASSERT_EQ(ir.failures.size(), 21u);
  for (std::size_t i = 0; i < ir.failures.size(); ++i) {
    EXPECT_EQ(ir.failures[i].trajectory, static_cast<std::int64_t>(i));  // index order
    EXPECT_EQ(ir.failures[i].integrator, "gonzalez");
    EXPECT_EQ(ir.failures[i].time, 0.0);
    EXPECT_NE(ir.failures[i].reason.find("Newton"), std::string::npos);
  }
  EXPECT_EQ(ir.observables[0].count[0], 0);  // failed trajectories are left out

  // An explicit method blowing up is reported as non-finite, with the time reached.
  s.integrators[0].integrator = "rk4";
  s.integrators[0].newton_max_iter = 0;  // rk4 has no Newton solve to set
  s.integrators[0].h = 2.5;
  s.integrators[0].sample_every = 1;
  s.t_final = 500.0;
  std::get<EnergyShellGenerator>(s.initial_conditions).count = 3;
  const EnsembleResult r2 = run_ensemble(s);
  EXPECT_EQ(r2.integrators[0].trajectories_failed, 3);
  EXPECT_NE(r2.integrators[0].failures[0].reason.find("non-finite"), std::string::npos);
  EXPECT_GT(r2.integrators[0].failures[0].time, 0.0);
}

/// Every trajectory of `count` fails: rk4 at h = 2.5 blows up within 200 steps.
EnsembleSpec all_failing_spec(std::int64_t count) {
  EnsembleSpec s = small_spec();
  s.integrators.resize(1);
  s.integrators[0].integrator = "rk4";
  s.integrators[0].h = 2.5;
  s.t_final = 500.0;
  std::get<EnergyShellGenerator>(s.initial_conditions).count = count;
  return s;
}

TEST(Ensemble, OnlyTheFirstFailuresAreListedWhateverTheSplit) {
  const EnsembleSpec s = all_failing_spec(1000);
  RunOptions two;
  two.threads = 2;
  const EnsembleResult whole = run_ensemble(s, two);
  const IntegratorResult& ir = whole.integrators[0];
  EXPECT_EQ(ir.trajectories_failed, 1000);
  ASSERT_EQ(ir.failures.size(), kMaxListedFailures);
  for (std::size_t i = 0; i < ir.failures.size(); ++i) {
    EXPECT_EQ(ir.failures[i].trajectory, static_cast<std::int64_t>(i));  // the first, in order
  }
  // Shards that each list their own first failures merge, in either order, to the same list.
  const PartialResult low = run_partial(s, {0, 30});
  const PartialResult high = run_partial(s, {30, 1000});
  PartialResult forward = low, backward = high;
  merge_partial(forward, high);
  merge_partial(backward, low);
  test::expect_bit_identical(finish(s, forward), whole);
  test::expect_bit_identical(finish(s, backward), whole);
  // The estimate holds the listed failures.
  const CostEstimate cost = estimate_cost(s);
  EXPECT_GE(cost.result_bytes, kFailureBytes * static_cast<double>(kMaxListedFailures));
}

TEST(Ensemble, CancelStopsAndCountsTheRest) {
  EnsembleSpec s = small_spec();
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.cancel = &cancel;
  const EnsembleResult r = run_ensemble(s, o);
  EXPECT_TRUE(r.cancelled);
  for (const auto& ir : r.integrators) {
    EXPECT_EQ(ir.trajectories_cancelled, 21);
    EXPECT_EQ(ir.trajectories_ok, 0);
  }
}

TEST(Ensemble, CancelStopsAnEnergyShellGeneratorThatCannotSucceed) {
  EnsembleSpec s = small_spec();
  s.integrators.resize(1);
  auto& shell = std::get<EnergyShellGenerator>(s.initial_conditions);
  shell.energy = 1e-12;  // V < 1e-12 needs |q|^2 < 2e-12 in 7 dimensions: no draw succeeds
  shell.max_attempts = 1'000'000;
  shell.count = 4;
  std::atomic<bool> cancel{false};
  RunOptions o;
  o.threads = 1;
  o.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel = true;
  });
  const EnsembleResult r = run_ensemble(s, o);
  canceller.join();
  // Without a look at the flag inside the generator, the first trajectory would use up its
  // 10^6 draws (about 0.4 s) and fail.
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.integrators[0].trajectories_failed, 0);
  EXPECT_EQ(r.integrators[0].trajectories_cancelled, 4);
}

TEST(Ensemble, TFinalIsAlwaysASampleTime) {
  EnsembleSpec s = small_spec();  // 100 steps of h = 0.05
  s.integrators.resize(1);
  s.integrators[0].integrator = "rk4";
  s.integrators[0].sample_every = 30;  // samples at steps 0, 30, 60, 90 and 100
  EnsembleSpec every_step = s;
  every_step.integrators[0].sample_every = 1;
  EnsembleSpec beyond = s;
  beyond.integrators[0].sample_every = 1000;  // more than the steps: t = 0 and t_final
  const EnsembleResult r = run_ensemble(s);
  const EnsembleResult all = run_ensemble(every_step);
  const EnsembleResult two = run_ensemble(beyond);
  ASSERT_EQ(r.integrators[0].sample_times, (std::vector<double>{0.0, 1.5, 3.0, 4.5, 5.0}));
  ASSERT_EQ(two.integrators[0].sample_times, (std::vector<double>{0.0, 5.0}));
  // The same states as sampling every step: the samples at steps 30, 60, 90 and 100 are
  // bit for bit those of the every-step run.
  const SeriesStats& e = r.integrators[0].observables[0];
  const SeriesStats& e_all = all.integrators[0].observables[0];
  const SeriesStats& e_two = two.integrators[0].observables[0];
  const std::size_t steps[] = {0, 30, 60, 90, 100};
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(e.mean[k], e_all.mean[steps[k]]) << "sample " << k;
    EXPECT_EQ(e.max[k], e_all.max[steps[k]]) << "sample " << k;
  }
  EXPECT_EQ(e_two.mean[1], e_all.mean[100]);
  EXPECT_GT(e_two.max[1], 0.0);  // the energy error at t_final, not only the zero at t = 0
  EXPECT_EQ(r.integrators[0].steps_completed, 21 * 100);
}

void expect_spec_error(const EnsembleSpec& s, const std::string& field,
                       const std::string& reason_part) {
  try {
    validate(s);
    ADD_FAILURE() << "no error for " << field;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  }
}

TEST(Ensemble, ValidationNamesTheField) {
  EnsembleSpec s = small_spec();
  EXPECT_NO_THROW(validate(s));
  {
    auto b = s;
    b.system = "nope";
    expect_spec_error(b, "system", "known: chaotic_quartic, rolling_disk");
  }
  {
    auto b = s;
    b.integrators[1].integrator = "euler";
    expect_spec_error(
        b, "integrators[1].integrator",
        "known: gonzalez, avf, si_dla, rk4, itoh_abe, midpoint, exact, gonzalez_f, i_dla, "
        "gonzalez_r, gonzalez_r_fd, spark2");
  }
  {
    auto b = s;
    b.integrators[2].h = -0.1;
    expect_spec_error(b, "integrators[2].h", "> 0");
  }
  {
    auto b = s;
    b.integrators[2].h = std::nan("");
    expect_spec_error(b, "integrators[2].h", "finite");
  }
  {
    auto b = s;
    b.integrators[0].h = 0.03;
    expect_spec_error(b, "integrators[0].h", "integer multiple");
  }
  {
    auto b = s;
    b.t_final = 0.0;
    expect_spec_error(b, "t_final", "> 0");
  }
  {
    auto b = s;
    b.integrators[3].sample_every = 0;
    expect_spec_error(b, "integrators[3].sample_every", ">= 1");
  }
  {  // a setting that does not apply is refused, not ignored: rk4 has no Newton solve
    auto b = s;
    b.integrators[3].newton_tol = 1e-10;
    expect_spec_error(b, "integrators[3].newton_tol", "does not apply: rk4 is explicit");
    b.integrators[3].newton_tol = 0.0;
    b.integrators[3].newton_max_iter = 10;
    expect_spec_error(b, "integrators[3].newton_max_iter", "does not apply: rk4 is explicit");
  }
  {  // V >= 0 on chaotic_quartic: a shell at or below 0 has no state
    auto b = s;
    std::get<EnergyShellGenerator>(b.initial_conditions).energy = 0.0;
    expect_spec_error(b, "initial_conditions.energy_shell.energy", "cannot be reached: V >= 0");
    std::get<EnergyShellGenerator>(b.initial_conditions).energy = 1e-12;
    EXPECT_NO_THROW(validate(b));
    b.system = "gearbox";  // V >= -|a| - |b| = -1.2 with the defaults
    b.parameters = {};
    b.integrators.resize(1);
    b.integrators[0].integrator = "gonzalez_r";
    std::get<EnergyShellGenerator>(b.initial_conditions).energy = -1.25;
    expect_spec_error(b, "initial_conditions.energy_shell.energy", "V >= -1.2");
    std::get<EnergyShellGenerator>(b.initial_conditions).energy = -1.1;
    EXPECT_NO_THROW(validate(b));
  }
  {
    auto b = s;
    std::get<EnergyShellGenerator>(b.initial_conditions).count = 0;
    expect_spec_error(b, "initial_conditions.energy_shell.count", "zero trajectories");
  }
  {
    auto b = s;
    b.parameters["m"] = 1.0;
    expect_spec_error(b, "parameters.m", "known: n");
  }
  {
    auto b = s;
    b.parameters["n"] = 2.5;
    expect_spec_error(b, "parameters.n", "integer");
  }
  {
    auto b = s;
    b.observables = {"energy_error", "momentum"};
    expect_spec_error(b, "observables[1]", "unknown observable");
  }
  // A state component in its one canonical spelling only ("q[ 1]" and "q[+1]" were
  // accepted as q[1] under another name).
  for (const char* other : {"q[ 1]", "q[+1]", "q[01]", "q[1 ]", "q[]", "q[-0]", "q[1e0]"}) {
    auto b = s;
    b.observables = {"energy_error", other};
    expect_spec_error(b, "observables[1]", "without sign, blanks or leading zeros");
  }
  {
    auto b = s;
    b.observables = {"q[0]", "q[6]", "p[10]"};
    expect_spec_error(b, "observables[2]", "must be in [0, 6]");
    b.observables = {"q[0]", "q[6]"};
    EXPECT_NO_THROW(validate(b));
  }
  // Explicit states: dimension, finiteness, constraint.
  auto e = s;
  e.initial_conditions = ExplicitStates{{CanonicalState{
      {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {-(0.1 * 1 + 0.2 * 1 + 0.3 * 1), 0, 0, 0, 1, 1, 1}}}};
  EXPECT_NO_THROW(validate(e));
  {
    auto b = e;
    std::get<ExplicitStates>(b.initial_conditions).states.edit()[0].q.pop_back();
    expect_spec_error(b, "initial_conditions.states[0].q", "needs 7");
  }
  {
    auto b = e;
    std::get<ExplicitStates>(b.initial_conditions).states.edit()[0].p[3] = INFINITY;
    expect_spec_error(b, "initial_conditions.states[0].p", "finite");
  }
  {
    auto b = e;
    std::get<ExplicitStates>(b.initial_conditions).states.edit()[0].p[0] += 1e-9;
    expect_spec_error(b, "initial_conditions.states[0].p", "off the constraint");
  }
  {
    auto b = e;
    std::get<ExplicitStates>(b.initial_conditions).states.clear();
    expect_spec_error(b, "initial_conditions", "zero trajectories");
  }
}

TEST(Ensemble, ExplicitStatesRunWithStateObservables) {
  EnsembleSpec s = small_spec();
  s.initial_conditions = ExplicitStates{
      {CanonicalState{{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {-(0.1 + 0.2 + 0.3), 0, 0, 0, 1, 1, 1}}}};
  s.observables = {"energy_error", "q[1]", "p[0]"};
  const EnsembleResult r = run_ensemble(s);
  const auto& g = r.integrators[0];
  EXPECT_EQ(g.trajectories_ok, 1);
  EXPECT_EQ(g.observables[1].mean[0], 0.1);  // q[1] = w_1 at t = 0
  EXPECT_EQ(g.observables[2].mean[0], -(0.1 + 0.2 + 0.3));
  EXPECT_NE(g.observables[1].mean.back(), 0.1);  // it moved
}

TEST(Ensemble, VelocityPerturbationStaysOnTheConstraintAndIsDeterministic) {
  EnsembleSpec s = small_spec();
  s.initial_conditions = VelocityPerturbation{};
  auto& vp = std::get<VelocityPerturbation>(s.initial_conditions);
  vp.base =
      CanonicalState{{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {-(0.1 + 0.2 + 0.3), 0, 0, 0, 1, 1, 1}};
  vp.v_std = 0.1;
  vp.seed = 11;
  vp.count = 40;
  s.t_final = 1.0;
  s.integrators.resize(1);  // gonzalez
  s.observables = {"constraint_residual", "q[1]", "p[4]"};
  EXPECT_EQ(trajectory_count(s), 40);
  RunOptions one;
  one.threads = 1;
  RunOptions two;
  two.threads = 2;
  const EnsembleResult r = run_ensemble(s, one);
  test::expect_bit_identical(r, run_ensemble(s, two));
  const auto& g = r.integrators[0];
  EXPECT_EQ(g.trajectories_ok, 40);
  EXPECT_LE(g.observables[0].max[0], 1e-14);     // every perturbed p on D_q
  EXPECT_EQ(g.observables[1].variance[0], 0.0);  // q is the base q
  EXPECT_EQ(g.observables[1].mean[0], 0.1);
  // p[4] = 1 + v_4 projected: spread ~ v_std, mean within 5 standard errors of the base.
  const double sd = std::sqrt(g.observables[2].variance[0]);
  EXPECT_GT(sd, 0.02);
  EXPECT_LT(sd, 0.2);
  EXPECT_NEAR(g.observables[2].mean[0], 1.0, 5.0 * sd / std::sqrt(40.0));
  // Another seed draws other states.
  auto other = s;
  std::get<VelocityPerturbation>(other.initial_conditions).seed = 12;
  EXPECT_NE(run_ensemble(other, one).integrators[0].observables[2].mean[0],
            g.observables[2].mean[0]);

  // Validation names the field.
  {
    auto b = s;
    std::get<VelocityPerturbation>(b.initial_conditions).v_std = 0.0;
    expect_spec_error(b, "initial_conditions.velocity_perturbation.v_std", "> 0");
  }
  {
    auto b = s;
    std::get<VelocityPerturbation>(b.initial_conditions).count = 0;
    expect_spec_error(b, "initial_conditions.velocity_perturbation.count", "zero trajectories");
  }
  {
    auto b = s;
    std::get<VelocityPerturbation>(b.initial_conditions).base.p[0] += 1e-9;
    expect_spec_error(b, "initial_conditions.velocity_perturbation.base.p", "off the constraint");
  }
  {
    auto b = s;
    std::get<VelocityPerturbation>(b.initial_conditions).base.q.pop_back();
    expect_spec_error(b, "initial_conditions.velocity_perturbation.base.q", "needs 7");
  }
}

/// The catalogue entry of integrator `name` (a test failure and an empty entry if missing).
IntegratorInfo integrator_named(const std::vector<IntegratorInfo>& all, const std::string& name) {
  for (const auto& info : all) {
    if (info.name == name) return info;
  }
  ADD_FAILURE() << "integrator " << name << " is not in the catalogue";
  return {};
}

// Catalogue entries found by name: order, implicitness and energy preservation as documented
// (the catalogue's ids; the methods of [Celledoni2019], [AnahorySimoes2022], [Kobilarov2010],
// [Kinon2023], [Gebhardt2020]).
TEST(Catalogue, ListsTheChaoticSystemAndItsIntegrators) {
  const auto systems = list_systems();
  const auto chaotic = std::find_if(systems.begin(), systems.end(), [](const SystemInfo& s) {
    return s.name == "chaotic_quartic";
  });
  ASSERT_NE(chaotic, systems.end());
  ASSERT_EQ(chaotic->parameters.size(), 1u);
  EXPECT_EQ(chaotic->parameters[0].name, "n");
  EXPECT_EQ(chaotic->parameters[0].default_value, 3.0);

  const auto all = list_integrators();
  struct Expected {
    const char* name;
    int order;
    bool implicit;
    bool energy_preserving;
  };
  const Expected expected[] = {
      {"gonzalez", 2, true, true},      {"avf", 2, true, true},
      {"si_dla", 2, true, false},       {"rk4", 4, false, false},
      {"itoh_abe", 1, true, true},      {"midpoint", 2, true, false},
      {"exact", 0, false, true},        {"gonzalez_f", 2, true, true},
      {"i_dla", 2, true, false},        {"gonzalez_r", 2, true, true},
      {"gonzalez_r_fd", 2, true, true}, {"spark2", 2, true, false},
      {"dla", 2, true, false},          {"mla", 2, true, false},
      {"nh_rattle", 2, false, false},   {"nh_rattle_projected", 2, false, false},
      {"rk2", 2, false, false},         {"rdp_exp", 2, true, false},
      {"rdp_cay", 2, true, false},      {"em", 2, true, true},
      {"ggl", 1, true, false},          {"avf_f", 2, true, true}};
  for (const Expected& e : expected) {
    const IntegratorInfo info = integrator_named(all, e.name);
    EXPECT_EQ(info.name, e.name);
    EXPECT_EQ(info.order, e.order) << e.name;
    EXPECT_EQ(info.implicit, e.implicit) << e.name;
    EXPECT_EQ(info.energy_preserving, e.energy_preserving) << e.name;
  }
  // Every catalogue entry is one of the documented ids, and none appears twice.
  EXPECT_EQ(all.size(), std::size(expected));
  EXPECT_FALSE(not_applicable("chaotic_quartic", "si_dla").has_value());
  const auto why = not_applicable("chaotic_quartic", "exact");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("explicit solution"), std::string::npos) << *why;
}

TEST(Ensemble, SiDlaNewtonSettingsAreRefusedOnTheChaoticQuartic) {
  // Issue 45: si_dla on the chaotic quartic system accepted newton_tol 1e-6 and
  // newton_max_iter 2 and returned bit-identical results. Its multiplier equation is affine there
  // (mu depends on w only, the constraint force has no w-component): one linear solve, no Newton
  // iteration, so neither setting is read and both are refused, as for an explicit method.
  EnsembleSpec s = small_spec();
  ASSERT_EQ(s.integrators[2].integrator, "si_dla");
  const std::string why = "does not apply: si_dla does no Newton solve on system 'chaotic_quartic'";
  s.integrators[2].newton_tol = 1e-6;
  expect_spec_error(s, "integrators[2].newton_tol", why);
  s.integrators[2].newton_max_iter = 2;
  expect_spec_error(s, "integrators[2].newton_tol", why);  // the first field that does not apply
  s.integrators[2].newton_tol = 0.0;
  expect_spec_error(s, "integrators[2].newton_max_iter", why);
  s.integrators[2].newton_max_iter = 0;
  EXPECT_NO_THROW(validate(s));
}

TEST(Ensemble, SiDlaNewtonSettingsApplyOnlyWhereItIterates) {
  // si_dla is implicit where mu(q) moves along the constraint forces (simplified Newton on lambda)
  // and a linear solve elsewhere (kSiDlaConstraintAffine, nhsim/integrators/si_dla.hpp): the
  // settings are refused per (system, integrator) pair. Every catalogue system si_dla applies
  // to is checked, so that one missing from the validation's list (a std::logic_error) is found.
  const std::vector<std::string> affine = {"chaotic_quartic", "rolling_disk", "gearbox",
                                           "nonholonomic_particle", "knife_edge"};
  int iterating = 0;
  for (const SystemInfo& sys : list_systems()) {
    if (std::find(sys.integrators.begin(), sys.integrators.end(), "si_dla") ==
        sys.integrators.end()) {
      continue;
    }
    EnsembleSpec s;
    s.system = sys.name;
    s.initial_conditions = EnergyShellGenerator{};
    std::get<EnergyShellGenerator>(s.initial_conditions).energy = 1.0;
    IntegratorChoice c;
    c.integrator = "si_dla";
    c.h = 0.01;
    c.newton_max_iter = 7;
    s.integrators = {c};
    s.t_final = 0.1;
    std::string field = "(valid)";
    try {
      validate(s);
    } catch (const SpecError& e) {
      field = e.field();  // the initial conditions may not suit every system: not checked here
    }
    const bool refused = std::find(affine.begin(), affine.end(), sys.name) != affine.end();
    if (refused) {
      EXPECT_EQ(field, "integrators[0].newton_max_iter") << sys.name;
    } else {
      EXPECT_NE(field, "integrators[0].newton_max_iter") << sys.name;
      ++iterating;
    }
  }
  EXPECT_GE(iterating, 1);  // e.g. chaplygin_sleigh_com, gyroscopic_top, four_bar
}

}  // namespace
}  // namespace nhsim

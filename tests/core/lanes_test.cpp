// Lanes (nhsim/lanes.hpp, docs/design.md "Lanes"): stepping trajectories in SIMD lanes gives the
// scalar path's bits, with lanes off and at every width of every instruction set this CPU runs:
// lane states step by step, then whole ensembles (the variance example, failures, outputs).
#include "nhsim/lanes.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lane_test_support.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "result_compare.hpp"

namespace nhsim {
namespace {

using test::forced_settings;
using test::name;
using test::with_lanes;

bool same_bits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

TEST(Lanes, BaselineIsAlwaysAvailable) {
  const std::vector<LaneIsa> isas = available_lane_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front(), LaneIsa::kBaseline);
  std::string names;
  for (LaneIsa isa : isas) names += std::string(" ") + lane_isa_name(isa);
  RecordProperty("lane_isas", names);
}

using Sys = ChaoticQuartic<3>;

/// The integrators with lane kernels on the chaotic quartic system (n = 3).
constexpr const char* kLaneMethods[] = {
    "si_dla",     "rk2",      "nh_rattle", "nh_rattle_projected",
    "rk4",        "gonzalez", "avf",       "midpoint",
    "itoh_abe",   "i_dla",    "spark2",    "dla",
    "gonzalez_f", "avf_f"};

/// Lanes of `c` at setting `s`, and one scalar stepper per lane: lane l and scalar[l] both at the
/// energy-shell state l of g (H = 3.06).
template <class Model>
void start_lanes(const Model& model, const IntegratorChoice& c, const LaneSettings& s,
                 std::uint64_t seed, std::unique_ptr<LaneStepper>& lanes,
                 std::vector<std::unique_ptr<Stepper>>& scalar) {
  lanes = model.make_lane_stepper(c, s);
  ASSERT_NE(lanes, nullptr) << c.integrator << " " << name(s);
  ASSERT_EQ(lanes->width(), s.width);
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = seed;
  scalar.clear();
  Eigen::VectorXd q, p;
  std::string reason;
  for (int l = 0; l < s.width; ++l) {
    ASSERT_TRUE(energy_shell_state(model, g, l, q, p, reason)) << reason;
    scalar.push_back(model.make_stepper(c));
    scalar.back()->set_state(q, p);
    lanes->set_state(l, q, p);
  }
}

/// Lane l's state is bit for bit scalar[l]'s.
void expect_same_state(const LaneStepper& lanes, int l, const Stepper& scalar,
                       const std::string& where) {
  Eigen::VectorXd q1, p1;
  scalar.get_state(q1, p1);
  Eigen::VectorXd q2(q1.size()), p2(p1.size());
  lanes.get_state(l, q2, p2);
  EXPECT_TRUE(same_bits(q1, q2) && same_bits(p1, p2)) << where << " lane " << l;
}

/// Advances the lanes and each lane's scalar stepper by each of `pieces` in turn; after each,
/// every lane is its scalar trajectory: status, steps done, finiteness, state, energy and residual
/// to the bit.
void expect_lanes_follow_scalar(LaneStepper& lanes, std::vector<std::unique_ptr<Stepper>>& scalar,
                                std::initializer_list<std::int64_t> pieces,
                                const std::string& where) {
  for (std::int64_t piece : pieces) {
    lanes.advance(piece);
    const std::string at = where + " after " + std::to_string(piece);
    for (int l = 0; l < lanes.width(); ++l) {
      ASSERT_EQ(scalar[l]->advance(piece).status, StepStatus::kOk) << at;
      ASSERT_EQ(lanes.result(l).status, StepStatus::kOk) << at;
      ASSERT_EQ(lanes.result(l).steps_done, piece) << at;
      ASSERT_TRUE(lanes.finite(l)) << at;
      expect_same_state(lanes, l, *scalar[l], at);
      double e1 = 0, r1 = 0, e2 = 0, r2 = 0;
      scalar[l]->energy_and_residual(e1, r1);
      lanes.energy_and_residual(l, e2, r2);
      EXPECT_EQ(std::memcmp(&e1, &e2, sizeof e1), 0) << at;
      EXPECT_EQ(std::memcmp(&r1, &r2, sizeof r1), 0) << at;
    }
  }
}

TEST(Lanes, EachLaneIsItsScalarTrajectoryBitForBit) {
  const ModelImpl<Sys> model(Sys(3));
  for (const char* id : kLaneMethods) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    for (const LaneSettings& s : forced_settings()) {
      std::unique_ptr<LaneStepper> lanes;
      std::vector<std::unique_ptr<Stepper>> scalar;
      ASSERT_NO_FATAL_FAILURE(start_lanes(model, c, s, 11, lanes, scalar));
      // Pieces of different lengths, as the ensemble advances them between samples.
      ASSERT_NO_FATAL_FAILURE(
          expect_lanes_follow_scalar(*lanes, scalar, {1, 7, 20, 1000}, id + (" " + name(s))));
    }
  }
}

TEST(Lanes, TheMethodsOwnCodeInLanesIsTheScalarPathAtOtherSizes) {
  // si_dla and rk4 at n = 2 and 5: the catalogue's dynamic-size system, stepped in lanes as the
  // fixed-size one by the integrators' own code (core/src/lanes/method_lanes.hpp).
  for (int n : {2, 5}) {
    const ModelImpl<ChaoticQuartic<Eigen::Dynamic>> model{ChaoticQuartic<Eigen::Dynamic>(n)};
    for (const char* id : {"si_dla", "rk4"}) {
      IntegratorChoice c;
      c.integrator = id;
      c.h = 0.05;
      for (const LaneSettings& s : forced_settings()) {
        std::unique_ptr<LaneStepper> lanes;
        std::vector<std::unique_ptr<Stepper>> scalar;
        ASSERT_NO_FATAL_FAILURE(start_lanes(model, c, s, 13, lanes, scalar));
        ASSERT_NO_FATAL_FAILURE(expect_lanes_follow_scalar(
            *lanes, scalar, {1, 7, 1000}, "n = " + std::to_string(n) + " " + id + " " + name(s)));
      }
    }
  }
}

TEST(Lanes, ALaneSetAgainRestartsAsItsScalarTrajectoryWhileTheOthersGoOn) {
  // Lane 1 gets a new state between two advances: it starts afresh (nh_rattle's lambda_0 = 0,
  // nh_rattle_projected's first step eq. (16)) while the other lanes continue.
  const ModelImpl<Sys> model(Sys(3));
  for (const char* id : kLaneMethods) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    for (const LaneSettings& s : forced_settings()) {
      std::unique_ptr<LaneStepper> lanes;
      std::vector<std::unique_ptr<Stepper>> scalar;
      ASSERT_NO_FATAL_FAILURE(start_lanes(model, c, s, 12, lanes, scalar));
      lanes->advance(5);
      for (int l = 0; l < s.width; ++l) ASSERT_EQ(scalar[l]->advance(5).status, StepStatus::kOk);
      EnergyShellGenerator g;
      g.energy = 3.06;
      g.seed = 13;
      Eigen::VectorXd q, p;
      std::string reason;
      ASSERT_TRUE(energy_shell_state(model, g, 0, q, p, reason)) << reason;
      scalar[1] = model.make_stepper(c);
      scalar[1]->set_state(q, p);
      lanes->set_state(1, q, p);
      lanes->advance(7);
      for (int l = 0; l < s.width; ++l) {
        ASSERT_EQ(scalar[l]->advance(7).status, StepStatus::kOk);
        expect_same_state(*lanes, l, *scalar[l], std::string(id) + " " + name(s));
      }
    }
  }
}

TEST(Lanes, OnlyPairsWithKernelsHaveLanes) {
  const ModelImpl<ChaoticQuartic<3>> model(ChaoticQuartic<3>(3));
  IntegratorChoice c;
  c.h = 0.05;
  for (const char* id : {"gonzalez_r", "gonzalez_r_fd"}) {
    c.integrator = id;
    EXPECT_EQ(model.make_lane_stepper(c, {LaneIsa::kBaseline, 4}), nullptr) << id;
  }
  c.integrator = "rk4";
  EXPECT_EQ(model.make_lane_stepper(c, {LaneIsa::kOff, 0}), nullptr);
  // The dynamic-size system has lanes at n = 2 and 5 only (n = 3 is ChaoticQuartic<3>'s).
  for (int n : {1, 3, 4, 6}) {
    const ModelImpl<ChaoticQuartic<Eigen::Dynamic>> dynamic{ChaoticQuartic<Eigen::Dynamic>(n)};
    EXPECT_EQ(dynamic.make_lane_stepper(c, {LaneIsa::kBaseline, 4}), nullptr) << n;
  }
  const ModelImpl<ChaoticQuartic<Eigen::Dynamic>> n2(ChaoticQuartic<Eigen::Dynamic>(2));
  EXPECT_NE(n2.make_lane_stepper(c, {LaneIsa::kBaseline, 4}), nullptr);
  c.integrator = "gonzalez";
  EXPECT_EQ(n2.make_lane_stepper(c, {LaneIsa::kBaseline, 4}), nullptr);
}

/// examples/chaotic_variance.json ([Celledoni2019] Fig. 2, bottom right): 200 trajectories on the
/// energy shell H = 3.06 with gonzalez, avf, si_dla and rk4, h = 0.05, every 20 steps; here to
/// t_final (1000 in the example) and with every per-trajectory output.
EnsembleSpec variance_example(double t_final, const std::vector<std::string>& ids) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  s.initial_conditions = EnergyShellGenerator{3.06, 20261122, 200, 0.5, 10000};
  for (const std::string& id : ids) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 20;
    s.integrators.push_back(c);
  }
  s.t_final = t_final;
  s.outputs.initial_states.all = true;
  s.outputs.final_states.all = true;
  s.outputs.sampled.indices = {0, 5, 9, 100, 199};
  s.outputs.sampled_state = true;
  s.outputs.summary = true;
  s.outputs.histograms.push_back({"energy_error", {0.0, t_final}, {-1e-4, -1e-7, 0.0, 1e-7, 1e-4}});
  return s;
}

TEST(Lanes, VarianceExampleIsBitIdenticalWithLanesOffAndAtEveryWidth) {
  // The whole example (cut to t = 50) with lanes off and on; then to t = 200 at every width of
  // every instruction set.
  const EnsembleSpec all = variance_example(50.0, {"gonzalez", "avf", "si_dla", "rk4"});
  const EnsembleResult off = run_ensemble(all, with_lanes({LaneIsa::kOff, 0}));
  ASSERT_EQ(off.integrators[3].trajectories_ok, 200);
  test::expect_bit_identical(off, run_ensemble(all, with_lanes({LaneIsa::kAuto, 0})));

  const EnsembleSpec lane_pairs = variance_example(
      200.0, {"si_dla", "rk2", "nh_rattle", "nh_rattle_projected", "rk4", "gonzalez", "avf"});
  const EnsembleResult reference = run_ensemble(lane_pairs, with_lanes({LaneIsa::kOff, 0}));
  test::expect_bit_identical_at_every_setting(reference, lane_pairs);
  // The cheaper-to-test implicit methods, to t = 20.
  const EnsembleSpec more = variance_example(
      20.0, {"midpoint", "itoh_abe", "i_dla", "spark2", "dla", "gonzalez_f", "avf_f"});
  const EnsembleResult more_off = run_ensemble(more, with_lanes({LaneIsa::kOff, 0}));
  test::expect_bit_identical_at_every_setting(more_off, more);
  // One thread and one block per lane batch boundary: the same bits again.
  test::expect_bit_identical(reference,
                             run_ensemble(lane_pairs, with_lanes({LaneIsa::kBaseline, 2}, 1)));
}

TEST(Lanes, EnsemblesAtOtherSizesAreBitIdenticalWithLanesOffAndAtEveryWidth) {
  for (int n : {2, 5}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    EnsembleSpec s = variance_example(50.0, {"si_dla", "rk4"});
    s.parameters = {{"n", n}};
    const EnsembleResult off = run_ensemble(s, with_lanes({LaneIsa::kOff, 0}));
    ASSERT_EQ(off.integrators[1].trajectories_ok, 200);
    test::expect_bit_identical_at_every_setting(off, s);
  }
}

TEST(Lanes, EveryPairWithTheMethodsOwnCodeInLanesIsTheScalarPath) {
  // Each catalogue system besides the chaotic quartic whose si_dla or rk4 runs in lanes
  // (lanes::MethodLaneSystems), its default parameters, 64 energy-shell states: bit-identical
  // with lanes off and at every width of every instruction set this CPU runs, and lanes exist.
  struct Case {
    const char* system;
    double energy;
    std::vector<std::string> integrators;
  };
  const std::vector<Case> cases = {{"nonholonomic_particle", 1.0, {"si_dla", "rk4"}},
                                   {"knife_edge", 1.0, {"si_dla", "rk4"}},
                                   {"gearbox", 2.0, {"si_dla"}},
                                   {"chaplygin_sleigh", 1.0, {"rk4"}},
                                   {"suslov", 0.5, {"rk4"}},
                                   {"rolling_disk", 1.0, {"rk4"}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.system);
    EnsembleSpec s = variance_example(20.0, c.integrators);
    s.system = c.system;
    s.parameters.clear();
    s.initial_conditions = EnergyShellGenerator{c.energy, 20261122, 64, 0.5, 10000};
    s.outputs.sampled.indices = {0, 5, 9, 63};
    const SystemEntry* entry = find_system(c.system);
    ASSERT_NE(entry, nullptr);
    const std::unique_ptr<SystemModel> model = entry->make(complete_parameters(*entry, {}));
    for (const IntegratorChoice& choice : s.integrators) {
      EXPECT_NE(model->make_lane_stepper(choice, {LaneIsa::kBaseline, 2}), nullptr)
          << choice.integrator;
    }
    const EnsembleResult off = run_ensemble(s, with_lanes({LaneIsa::kOff, 0}));
    for (const IntegratorResult& r : off.integrators) {
      EXPECT_EQ(r.trajectories_ok, 64) << r.choice.integrator;
    }
    test::expect_bit_identical_at_every_setting(off, s);
  }
}

/// Spec s, with lanes off, fails some trajectories of every integrator and not all; with lanes at
/// every width of every instruction set, its result is bit-identical (failures included).
void expect_failures_bit_identical_in_lanes(const EnsembleSpec& s) {
  const EnsembleResult off = run_ensemble(s, with_lanes({LaneIsa::kOff, 0}));
  for (const IntegratorResult& r : off.integrators) {
    EXPECT_GT(r.trajectories_failed, 0) << r.choice.integrator;
    EXPECT_GT(r.trajectories_ok, 0) << r.choice.integrator;
  }
  test::expect_bit_identical_at_every_setting(off, s);
}

TEST(Lanes, FailuresAreTheScalarPathsInEveryLane) {
  // Explicit states of growing size: stiff for h = 0.05, they blow up after different numbers
  // of steps (and at different samples), each in its own lane among ordinary ones.
  EnsembleSpec s = variance_example(
      20.0, std::vector<std::string>(std::begin(kLaneMethods), std::end(kLaneMethods)));
  s.outputs.histograms.clear();
  s.outputs.histograms.push_back({"energy_error", {0.0, 20.0}, {-1.0, 0.0, 1.0}});
  ExplicitStates states;
  const ModelImpl<ChaoticQuartic<3>> model(ChaoticQuartic<3>(3));
  EnergyShellGenerator g{3.06, 5, 0, 0.5, 10000};
  for (int i = 0; i < 19; ++i) {
    Eigen::VectorXd q, p;
    std::string reason;
    if (i % 3 == 1) {
      const double a = 3.0 * (i + 1);  // |q| from 6 to 60
      q = Eigen::VectorXd::Zero(7);
      p = Eigen::VectorXd::Zero(7);
      q << 0.0, a, -a, 0.5 * a, a, 0.25 * a, -a;
    } else {
      ASSERT_TRUE(energy_shell_state(model, g, i, q, p, reason)) << reason;
    }
    states.states.push_back({{q.begin(), q.end()}, {p.begin(), p.end()}});
  }
  s.initial_conditions = states;
  s.outputs.sampled.indices = {0, 1, 4, 7, 18};
  expect_failures_bit_identical_in_lanes(s);
}

TEST(Lanes, NewtonFailuresAreTheScalarPathsInEveryLane) {
  // A Newton iteration capped at 3 to 6 iterations (the default is 50): the lanes' reused inverses
  // stop converging, fresh factorisations run (in the scalar steppers, or in SIMD for i_dla,
  // spark2, dla, gonzalez_f and avf_f), the damped fallback runs in the scalar steppers, and many
  // trajectories fail, each at a step of its own.
  EnsembleSpec s = variance_example(
      40.0, {"gonzalez", "avf", "itoh_abe", "i_dla", "spark2", "dla", "gonzalez_f", "avf_f"});
  for (IntegratorChoice& c : s.integrators) c.newton_max_iter = 4;
  s.integrators[2].newton_max_iter = 6;  // itoh_abe fails every trajectory at 4
  s.integrators[3].newton_max_iter = 3;  // i_dla fails no trajectory at 4
  s.integrators[4].newton_max_iter = 3;  // nor does spark2
  s.integrators[5].newton_max_iter = 3;  // nor does dla
  s.integrators[6].newton_max_iter = 5;  // gonzalez_f fails every trajectory at 4, none at 6
  s.integrators[7].newton_tol = 3e-16;   // avf_f fails no trajectory at 4 with the default tol
  s.outputs.histograms.clear();
  s.outputs.histograms.push_back({"energy_error", {0.0, 40.0}, {-1.0, 0.0, 1.0}});
  expect_failures_bit_identical_in_lanes(s);
}

TEST(Lanes, CancelledBeforeStartCountsEveryTrajectory) {
  const EnsembleSpec s = variance_example(10.0, {"si_dla", "rk4"});
  std::atomic<bool> cancel{true};
  RunOptions o = with_lanes({LaneIsa::kBaseline, 4});
  o.cancel = &cancel;
  const EnsembleResult r = run_ensemble(s, o);
  EXPECT_TRUE(r.cancelled);
  for (const IntegratorResult& ir : r.integrators) {
    EXPECT_EQ(ir.trajectories_ok + ir.trajectories_failed + ir.trajectories_cancelled, 200);
  }
}

TEST(Lanes, SettingsAreResolvedAndBadOnesRefused) {
  EXPECT_EQ(resolve_lane_settings({LaneIsa::kOff, 0}).isa, LaneIsa::kOff);
  const LaneSettings base = resolve_lane_settings({LaneIsa::kBaseline, 0});
  EXPECT_EQ(base.isa, LaneIsa::kBaseline);
  EXPECT_EQ(base.width, 4);
  EXPECT_THROW(resolve_lane_settings({LaneIsa::kBaseline, 3}), std::invalid_argument);
  ::unsetenv("NHSIM_LANES");
  EXPECT_EQ(resolve_lane_settings({}).isa, available_lane_isas().back());
  ::setenv("NHSIM_LANES", "off", 1);
  EXPECT_EQ(resolve_lane_settings({}).isa, LaneIsa::kOff);
  ::setenv("NHSIM_LANES", "baseline:8", 1);
  const LaneSettings env = resolve_lane_settings({});
  EXPECT_EQ(env.isa, LaneIsa::kBaseline);
  EXPECT_EQ(env.width, 8);
  // An explicit setting is not overridden by the environment.
  EXPECT_EQ(resolve_lane_settings({LaneIsa::kOff, 0}).isa, LaneIsa::kOff);
  for (const char* bad : {"sse9", "avx2:3", "baseline:", "on"}) {
    ::setenv("NHSIM_LANES", bad, 1);
    EXPECT_THROW(resolve_lane_settings({}), std::invalid_argument) << bad;
  }
  ::unsetenv("NHSIM_LANES");
}

}  // namespace
}  // namespace nhsim

// Per-trajectory outputs and histograms (nhsim/outputs.hpp): the initial states reproduce the
// ensemble when sent back; outputs are bit-identical across threads and shards; each output
// agrees with the others and with the statistics; bad settings are refused naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "result_compare.hpp"

namespace nhsim {
namespace {

constexpr std::int64_t kTrajectories = 40;

// The chaotic quartic system of [Celledoni2019] Fig. 2 on an energy shell, an implicit and an
// explicit method, 11 samples per trajectory.
EnsembleSpec shell_spec() {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 7;
  g.count = kTrajectories;
  s.initial_conditions = g;
  for (const char* id : {"gonzalez", "rk4"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.05;
    c.sample_every = 10;
    s.integrators.push_back(c);
  }
  s.t_final = 5.0;
  s.outputs.initial_states.all = true;
  s.outputs.final_states.all = true;
  s.outputs.sampled.indices = {3, 17, 39};
  s.outputs.sampled_state = true;
  s.outputs.summary = true;
  s.outputs.histograms.push_back(
      {"energy_error", {0.0, 2.5, 5.0}, {-1e-3, -1e-6, 0.0, 1e-6, 1e-3}});
  return s;
}

RunOptions threads(int n) {
  RunOptions o;
  o.threads = n;
  return o;
}

std::size_t column(const EnsembleResult& r, const std::string& observable) {
  const auto& obs = r.integrators[0].observables;
  for (std::size_t j = 0; j < obs.size(); ++j) {
    if (obs[j].observable == observable) return j;
  }
  ADD_FAILURE() << "no observable " << observable;
  return 0;
}

TEST(Outputs, InitialStatesSentBackAsExplicitStatesReproduceTheEnsemble) {
  const EnsembleSpec shell = shell_spec();
  const EnsembleResult drawn = run_ensemble(shell, threads(2));
  ASSERT_EQ(drawn.initial_states.size(), static_cast<std::size_t>(kTrajectories));
  EnsembleSpec explicit_spec = shell;
  ExplicitStates states;
  for (const TrajectoryState& s : drawn.initial_states) states.states.push_back(s.state);
  explicit_spec.initial_conditions = states;
  const EnsembleResult replayed = run_ensemble(explicit_spec, threads(2));
  test::expect_bit_identical(drawn, replayed);
  EXPECT_EQ(drawn.integrators[0].trajectories_ok, kTrajectories);
}

TEST(Outputs, AreBitIdenticalAcrossThreadsAndShards) {
  const EnsembleSpec spec = shell_spec();
  const EnsembleResult single = run_ensemble(spec, threads(1));
  const std::vector<std::int64_t> cuts = {0, 7, 8, 25, kTrajectories};
  PartialResult merged;
  for (std::size_t k = cuts.size() - 1; k-- > 0;) {  // back to front
    PartialResult part = run_partial(spec, {cuts[k], cuts[k + 1]}, threads(2));
    part.spec_hash = "outputs";
    if (k == cuts.size() - 2) {
      merged = std::move(part);
    } else {
      merge_partial(merged, part);
    }
  }
  test::expect_bit_identical(single, finish(spec, merged));
}

TEST(Outputs, SampledTrajectoryAgreesWithItsSummaryAndFinalState) {
  const EnsembleResult r = run_ensemble(shell_spec(), threads(2));
  const std::size_t n_obs = r.integrators[0].observables.size();
  const std::size_t energy = column(r, "energy_error");
  const std::size_t residual = column(r, "constraint_residual");
  for (const IntegratorResult& ir : r.integrators) {
    const ChoiceOutputs& out = ir.outputs;
    ASSERT_EQ(out.sampled.size(), 3u) << ir.choice.integrator;
    ASSERT_EQ(out.summary.size(), static_cast<std::size_t>(kTrajectories));
    ASSERT_EQ(out.final_states.size(), static_cast<std::size_t>(kTrajectories));
    const auto n_samples = static_cast<std::int64_t>(ir.sample_times.size());
    for (const SampledTrajectory& s : out.sampled) {
      const std::string where =
          ir.choice.integrator + " trajectory " + std::to_string(s.trajectory);
      ASSERT_EQ(s.samples, n_samples) << where;
      ASSERT_EQ(s.values.size(), static_cast<std::size_t>(n_samples) * n_obs) << where;
      // The summary's maxima are over the same samples, from the same energies and residuals.
      double max_e = 0.0, max_r = 0.0;
      for (std::int64_t k = 0; k < n_samples; ++k) {
        max_e = std::max(max_e, std::abs(s.values[static_cast<std::size_t>(k) * n_obs + energy]));
        max_r = std::max(max_r, s.values[static_cast<std::size_t>(k) * n_obs + residual]);
      }
      const TrajectorySummary& summary = out.summary[static_cast<std::size_t>(s.trajectory)];
      EXPECT_EQ(summary.trajectory, s.trajectory);
      EXPECT_EQ(summary.status, TrajectorySummary::Status::kOk) << where;
      EXPECT_EQ(summary.final_time, 5.0) << where;
      EXPECT_EQ(summary.max_abs_energy_error, max_e) << where;
      EXPECT_EQ(summary.max_constraint_residual, max_r) << where;
      EXPECT_GT(max_e, 0.0) << where;
      // The last sampled state is the final state; the first is the initial state.
      const std::size_t nq = r.initial_states[0].state.q.size();
      const CanonicalState& last = out.final_states[static_cast<std::size_t>(s.trajectory)].state;
      const CanonicalState& first = r.initial_states[static_cast<std::size_t>(s.trajectory)].state;
      const auto tail =
          static_cast<std::ptrdiff_t>((n_samples - 1) * static_cast<std::int64_t>(nq));
      EXPECT_TRUE(test::bit_equal({s.q.begin() + tail, s.q.end()}, last.q)) << where;
      EXPECT_TRUE(test::bit_equal({s.p.begin() + tail, s.p.end()}, last.p)) << where;
      EXPECT_TRUE(
          test::bit_equal({s.q.begin(), s.q.begin() + static_cast<std::ptrdiff_t>(nq)}, first.q))
          << where;
    }
  }
}

TEST(Outputs, HistogramCountsEverySuccessfulTrajectoryAtItsTimes) {
  EnsembleSpec spec = shell_spec();
  spec.outputs.sampled = {true, {}};
  const EnsembleResult r = run_ensemble(spec, threads(2));
  const std::size_t n_obs = r.integrators[0].observables.size();
  const std::size_t energy = column(r, "energy_error");
  for (const IntegratorResult& ir : r.integrators) {
    ASSERT_EQ(ir.outputs.histograms.size(), 1u);
    const HistogramResult& h = ir.outputs.histograms[0];
    ASSERT_EQ(h.at.size(), 3u);
    for (const HistogramCounts& at : h.at) {
      // Recount from the sampled trajectories: bins [e_k, e_k+1), the last one closed.
      const auto k = static_cast<std::size_t>(
          std::find(ir.sample_times.begin(), ir.sample_times.end(), at.time) -
          ir.sample_times.begin());
      ASSERT_LT(k, ir.sample_times.size()) << at.time;
      std::vector<std::int64_t> counts(h.edges.size() - 1, 0);
      std::int64_t below = 0, above = 0;
      for (const SampledTrajectory& s : ir.outputs.sampled) {
        const double v = s.values[k * n_obs + energy];
        if (v < h.edges.front()) {
          ++below;
        } else if (v > h.edges.back()) {
          ++above;
        } else {
          std::size_t bin = 0;
          while (bin + 2 < h.edges.size() && v >= h.edges[bin + 1]) ++bin;
          ++counts[bin];
        }
      }
      EXPECT_EQ(at.counts, counts) << ir.choice.integrator << " t = " << at.time;
      EXPECT_EQ(at.below, below);
      EXPECT_EQ(at.above, above);
      EXPECT_EQ(at.non_finite, 0);
    }
    // At t = 0 every energy error is exactly 0: all in the bin [0, 1e-6).
    EXPECT_EQ(h.at[0].counts[2], kTrajectories) << ir.choice.integrator;
  }
}

TEST(Outputs, SummaryRecordsEachFailureWithItsReasonAndTime) {
  EnsembleSpec spec = shell_spec();
  spec.integrators.resize(1);
  spec.integrators[0].newton_max_iter = 1;  // gonzalez cannot converge in one iteration
  const EnsembleResult r = run_ensemble(spec, threads(2));
  const IntegratorResult& ir = r.integrators[0];
  ASSERT_GT(ir.trajectories_failed, 0);
  ASSERT_EQ(ir.outputs.summary.size(), static_cast<std::size_t>(kTrajectories));
  std::int64_t failed = 0;
  std::size_t next_failure = 0;
  for (const TrajectorySummary& s : ir.outputs.summary) {
    if (s.status != TrajectorySummary::Status::kFailed) {
      EXPECT_TRUE(s.reason.empty());
      EXPECT_EQ(s.final_time, 5.0);
      continue;
    }
    ++failed;
    ASSERT_LT(next_failure, ir.failures.size());
    const TrajectoryFailure& f = ir.failures[next_failure++];
    EXPECT_EQ(s.trajectory, f.trajectory);
    EXPECT_EQ(s.reason, f.reason);
    EXPECT_EQ(s.final_time, f.time);
    EXPECT_LT(s.final_time, 5.0);
  }
  EXPECT_EQ(failed, ir.trajectories_failed);
  // Failed trajectories have no final state; the others do.
  EXPECT_EQ(static_cast<std::int64_t>(ir.outputs.final_states.size()), ir.trajectories_ok);
}

void expect_refused(const EnsembleSpec& spec, const std::string& field) {
  try {
    validate(spec);
    ADD_FAILURE() << "accepted; expected a SpecError on " << field;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(Outputs, BadSettingsAreRefusedNamingTheField) {
  EnsembleSpec s = shell_spec();
  s.outputs.final_states = {false, {1, kTrajectories}};
  expect_refused(s, "outputs.final_states.indices[1]");
  s = shell_spec();
  s.outputs.sampled = {false, {5, 5}};
  expect_refused(s, "outputs.sampled.indices[1]");
  s = shell_spec();
  s.outputs.initial_states = {true, {0}};
  expect_refused(s, "outputs.initial_states.indices");
  s = shell_spec();
  s.outputs.sampled = {};
  expect_refused(s, "outputs.sampled_state");  // a setting that does not apply
  s = shell_spec();
  s.outputs.histograms[0].observable = "q[0]";  // not among the spec's observables
  expect_refused(s, "outputs.histograms[0].observable");
  s = shell_spec();
  s.outputs.histograms[0].edges = {0.0, 1.0, 1.0};
  expect_refused(s, "outputs.histograms[0].edges[2]");
  s = shell_spec();
  s.outputs.histograms[0].times = {0.0, 0.25};  // step 5: not a multiple of sample_every 10
  expect_refused(s, "outputs.histograms[0].times[1]");
  s = shell_spec();
  s.outputs.histograms[0].times = {5.5};  // beyond t_final
  expect_refused(s, "outputs.histograms[0].times[0]");
}

TEST(Outputs, CostEstimateCountsTheirBytes) {
  EnsembleSpec spec = shell_spec();
  const CostEstimate with = estimate_cost(spec);
  spec.outputs = {};
  const CostEstimate without = estimate_cost(spec);
  EXPECT_EQ(without.output_bytes, 0.0);
  // At least 8 bytes per value: 40 initial and 2 x 40 final states of 2 x 7 doubles (nq = 2n + 1),
  // 2 x 3 sampled trajectories of 11 samples x (3 observables + 14 state components), and
  // 2 choices x 3 times x (4 bins, below, above, non-finite) counts; at most half as much again
  // for the trajectory indices and the summaries.
  const double values = 40 * 14 + 2 * 40 * 14 + 2 * 3 * 11 * (3 + 14) + 2 * 3 * 7;
  EXPECT_GE(with.output_bytes, 8.0 * values);
  EXPECT_LT(with.output_bytes, 1.5 * 8.0 * values);
  EXPECT_EQ(with.result_bytes - without.result_bytes, with.output_bytes);
}

}  // namespace
}  // namespace nhsim

// Coverage of the served confidence intervals: over 400 independent generator seeds of a cheap
// ensemble (SI-DLA on [Celledoni2019]'s chaotic quartic system, 400 states on the energy shell, t
// up to 20), the 95 % intervals of a mean, a variance, three quantiles and the growth drift b
// contain the reference value in 93-97 % of the seeds. The reference is one run of 40000
// states with another seed (its own standard errors are a tenth of one seed's): its mean,
// variance and b, and its quantiles as exact order statistics of its final states.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim {
namespace {

constexpr std::int64_t kSeeds = 400;
constexpr std::int64_t kStates = 400;  // the quantiles stay exact order statistics

EnsembleSpec spec(std::uint64_t seed, std::int64_t states) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = seed;
  g.count = states;
  s.initial_conditions = g;
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.05;
  c.sample_every = 20;
  s.integrators.push_back(c);
  s.t_final = 20.0;
  s.observables = {"energy_error", "q[0]"};
  return s;
}

/// Type-7 quantile of sorted values.
double type7(const std::vector<double>& sorted, double p) {
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto j = static_cast<std::size_t>(std::floor(h));
  if (j + 1 >= sorted.size()) return sorted.back();
  return sorted[j] + (h - static_cast<double>(j)) * (sorted[j + 1] - sorted[j]);
}

struct Counter {
  std::string name;
  std::int64_t covered = 0, total = 0;
  void add(bool in) {
    covered += in ? 1 : 0;
    ++total;
  }
  double fraction() const { return static_cast<double>(covered) / static_cast<double>(total); }
};

TEST(Coverage, NinetyFivePercentIntervalsCoverInNinetyThreeToNinetySevenPercentOfSeeds) {
  EnsembleSpec reference_spec = spec(20261128, 100 * kStates);
  reference_spec.outputs.final_states.all = true;
  const EnsembleResult reference = run_ensemble(reference_spec);
  const IntegratorResult& ref = reference.integrators[0];
  ASSERT_EQ(ref.trajectories_ok, 100 * kStates);
  const SeriesStats& ref_q = ref.observables[1];
  const double ref_mean = ref_q.mean.back(), ref_var = ref_q.variance.back();
  const double ref_b = ref.observables[0].variance_growth.b;
  std::vector<double> final_q0;
  for (const TrajectoryState& s : ref.outputs.final_states) final_q0.push_back(s.state.q[0]);
  std::sort(final_q0.begin(), final_q0.end());
  const double ref_q05 = type7(final_q0, 0.05), ref_q50 = type7(final_q0, 0.5),
               ref_q95 = type7(final_q0, 0.95);

  Counter mean{"mean of q[0]"}, var{"variance of q[0]"}, q05{"q05 of q[0]"}, q50{"median of q[0]"},
      q95{"q95 of q[0]"}, drift{"b of energy_error"};
  for (std::int64_t seed = 1; seed <= kSeeds; ++seed) {
    const EnsembleResult r = run_ensemble(spec(static_cast<std::uint64_t>(seed), kStates));
    const IntegratorResult& ir = r.integrators[0];
    ASSERT_EQ(ir.trajectories_ok, kStates) << seed;
    const SeriesStats& q = ir.observables[1];
    const std::size_t last = q.mean.size() - 1;
    mean.add(std::abs(q.mean[last] - ref_mean) <= 1.959964 * q.mean_stderr[last]);
    var.add(std::abs(q.variance[last] - ref_var) <= 1.959964 * q.variance_stderr[last]);
    q05.add(q.q05_lower[last] <= ref_q05 && ref_q05 <= q.q05_upper[last]);
    q50.add(q.q50_lower[last] <= ref_q50 && ref_q50 <= q.q50_upper[last]);
    q95.add(q.q95_lower[last] <= ref_q95 && ref_q95 <= q.q95_upper[last]);
    const VarianceGrowth& g = ir.observables[0].variance_growth;
    ASSERT_EQ(g.batches, kBatches);
    drift.add(std::abs(g.b - ref_b) <= student_t_975(g.batches - 1) * g.b_stderr);
  }
  for (const Counter* c : {&mean, &var, &q05, &q50, &q95, &drift}) {
    RecordProperty(c->name, std::to_string(c->fraction()));
    std::printf("coverage of %-18s %lld / %lld = %.3f\n", c->name.c_str(),
                static_cast<long long>(c->covered), static_cast<long long>(c->total),
                c->fraction());
    EXPECT_GE(c->fraction(), 0.93) << c->name;
    EXPECT_LE(c->fraction(), 0.97) << c->name;
  }
}

}  // namespace
}  // namespace nhsim

// Benchmarks on the chaotic quartic system, n = 3 ([Celledoni2019] §4.1):
//  * BM_Step/<integrator>: wall time per step of one trajectory (items = steps), and the Newton
//    iterations per step of the implicit ones;
//  * BM_Ensemble/<integrator>/<threads>: ensemble throughput in trajectory-steps per second.
// Run: build/bench/nhsim_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <string>

#include "nhsim/ensemble.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"

namespace {

using nhsim::ChaoticQuartic;
const char* const kIds[] = {"gonzalez", "avf",    "si_dla",     "rk4",
                            "i_dla",    "spark2", "gonzalez_f", "avf_f"};

void BM_Step(benchmark::State& state) {
  const std::string id = kIds[state.range(0)];
  state.SetLabel(id);
  using Sys = ChaoticQuartic<3>;
  nhsim::ModelImpl<Sys> model(Sys(3));
  nhsim::EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 1;
  Eigen::VectorXd q, p;
  std::string reason;
  nhsim::energy_shell_state(model, g, 0, q, p, reason);
  nhsim::IntegratorChoice c;
  c.integrator = id;
  c.h = 0.05;
  auto st = model.make_stepper(c);
  st->set_state(q, p);
  constexpr std::int64_t kSteps = 1000;
  const std::int64_t newton_before = st->newton_iterations();
  for (auto _ : state) {
    const auto r = st->advance(kSteps);
    benchmark::DoNotOptimize(r);
    if (r.status != nhsim::StepStatus::kOk) state.SkipWithError("step failed");
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
  state.counters["newton_per_step"] = static_cast<double>(st->newton_iterations() - newton_before) /
                                      static_cast<double>(state.iterations() * kSteps);
}
BENCHMARK(BM_Step)->DenseRange(0, 7)->Unit(benchmark::kMicrosecond);

void BM_Ensemble(benchmark::State& state) {
  const std::string id = kIds[state.range(0)];
  const int threads = static_cast<int>(state.range(1));
  state.SetLabel(id + " threads=" + std::to_string(threads));
  nhsim::EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.initial_conditions = nhsim::EnergyShellGenerator{3.06, 20261122, 64, 0.5, 10000};
  nhsim::IntegratorChoice c;
  c.integrator = id;
  c.h = 0.05;
  c.sample_every = 20;
  s.integrators = {c};
  s.t_final = id == std::string("si_dla") || id == std::string("rk4") ? 500.0 : 100.0;
  nhsim::RunOptions o;
  o.threads = threads;
  std::int64_t steps = 0;
  for (auto _ : state) {
    const auto r = nhsim::run_ensemble(s, o);
    steps += r.integrators[0].steps_completed;
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(BM_Ensemble)
    ->ArgsProduct({{0, 1, 2, 3}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

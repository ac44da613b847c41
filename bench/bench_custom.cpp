// User-defined systems against the catalogue: the chaotic quartic system, n = 3, as
// the built-in ChaoticQuartic<3> and as a custom_system evaluated by register tapes.
//  * BM_StepQuartic/<integrator>/<0 built-in | 1 custom | 2 custom at dynamic size>: wall time
//    per step of one trajectory (scalar stepper, no SIMD lanes; items = steps). 2 is the same
//    definition on CustomSystem<Eigen::Dynamic, Eigen::Dynamic>, the type of every size without
//    fixed-size types of its own;
//  * BM_CompileQuartic: the definition's parse, symbolic gradient and tape compilation, i.e. the
//    time from a spec to the first step (there is no cache: every spec compiles afresh).
// Run: build/bench/nhsim_bench_custom --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "nhsim/custom/definition.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/custom_system.hpp"

namespace {

const char* const kIds[] = {"si_dla", "gonzalez_r", "dla"};
const char* const kLabels[] = {
    "si_dla built-in",     "si_dla custom",     "si_dla custom dynamic",
    "gonzalez_r built-in", "gonzalez_r custom", "gonzalez_r custom dynamic",
    "dla built-in",        "dla custom",        "dla custom dynamic"};

nhsim::CustomSystemSpec quartic_spec() {
  nhsim::CustomSystemSpec s;
  s.coordinates = {"x", "w1", "w2", "w3", "z1", "z2", "z3"};
  for (int i = 0; i < 7; ++i) {
    std::vector<std::string> row;  // (GCC 12 warns falsely on row[i] = "1": -Wrestrict)
    for (int j = 0; j < 7; ++j) row.emplace_back(i == j ? "1" : "0");
    s.mass_matrix.push_back(row);
  }
  s.potential =
      "(x^2 + w1^2 + w2^2 + w3^2 + z1^2 + z2^2 + z3^2 + z1^2*z2^2 + w1^2*z1^2 + w2^2*z2^2 + "
      "w3^2*z3^2) / 2";
  s.constraints = {{"1", "0", "0", "0", "w1", "w2", "w3"}};
  return s;
}

void BM_StepQuartic(benchmark::State& state) {
  const std::string id = kIds[state.range(0)];
  state.SetLabel(kLabels[3 * state.range(0) + state.range(1)]);
  using Builtin = nhsim::ChaoticQuartic<3>;
  using Custom = nhsim::CustomSystem<7, 1>;
  using Dynamic = nhsim::CustomSystem<Eigen::Dynamic, Eigen::Dynamic>;
  const auto def = nhsim::compile_custom_system(quartic_spec());
  nhsim::ModelImpl<Builtin> builtin(Builtin(3));
  nhsim::ModelImpl<Custom> mine(Custom{def});
  nhsim::ModelImpl<Dynamic> dynamic(Dynamic{def});
  const nhsim::SystemModel* const models[] = {&builtin, &mine, &dynamic};
  const nhsim::SystemModel& model = *models[state.range(1)];
  nhsim::EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 1;
  Eigen::VectorXd q, p;
  std::string reason;
  nhsim::energy_shell_state(builtin, g, 0, q, p, reason);  // the same state for both
  nhsim::IntegratorChoice c;
  c.integrator = id;
  c.h = 0.05;
  auto st = model.make_stepper(c);
  st->set_state(q, p);
  constexpr std::int64_t kSteps = 1000;
  for (auto _ : state) {
    const auto r = st->advance(kSteps);
    benchmark::DoNotOptimize(r);
    if (r.status != nhsim::StepStatus::kOk) state.SkipWithError("step failed");
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}
BENCHMARK(BM_StepQuartic)->ArgsProduct({{0, 1, 2}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);

void BM_CompileQuartic(benchmark::State& state) {
  const nhsim::CustomSystemSpec spec = quartic_spec();
  for (auto _ : state) {
    auto def = nhsim::compile_custom_system(spec);
    benchmark::DoNotOptimize(def);
  }
}
BENCHMARK(BM_CompileQuartic)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

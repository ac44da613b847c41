// estimate_cost (nhsim/ensemble.hpp): the admission figures of a spec, also for specs far too
// large to run, whose figures must come out too large to admit rather than overflow.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "nhsim/ensemble.hpp"

namespace nhsim {
namespace {

/// chaotic_quartic with n = 64 (nq = 129): every one of its 261 observables, t_final / h = 8e15
/// steps per choice (under the 9e15 limit), `choices` rk4 choices. Each choice has
/// (8e15 + 1) x 261 = 2.1e18 statistics cells, so that 5 or more sum past the int64 maximum.
EnsembleSpec huge_spec(int choices) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 64}};
  EnergyShellGenerator shell;
  shell.energy = 3.0;
  shell.count = 1;
  s.initial_conditions = shell;
  for (int i = 0; i < choices; ++i) s.integrators.push_back({"rk4", 1.0, 1, 0.0, 0});
  s.t_final = 8e15;
  s.observables = {"energy_error", "relative_energy_error", "constraint_residual"};
  for (const char* v : {"q", "p"}) {
    for (int k = 0; k < 129; ++k)
      s.observables.push_back(std::string(v) + "[" + std::to_string(k) + "]");
  }
  return s;
}

TEST(EstimateCost, CellsOfOneChoiceAreSamplesTimesObservables) {
  const CostEstimate cost = estimate_cost(huge_spec(1));
  EXPECT_EQ(cost.cells, (8'000'000'000'000'000 + 1) * 261);
  EXPECT_EQ(cost.trajectory_steps, 8e15);
}

// Found by reading the spec path behind tests/fuzz/spec_fuzzer (the input is
// tests/fuzz/regressions/estimate-cost-cells-overflow.json): the cell count was summed in int64
// without a bound, a signed overflow (UBSan) that wrapped to a negative count, and so to
// negative statistics and result sizes that every admission limit let through.
TEST(EstimateCost, CellsSaturateInsteadOfOverflowing) {
  const CostEstimate cost = estimate_cost(huge_spec(6));
  EXPECT_EQ(cost.cells, std::numeric_limits<std::int64_t>::max());
  EXPECT_GT(cost.statistics_bytes, 1e19);
  EXPECT_GT(cost.result_bytes, 1e20);
  EXPECT_EQ(cost.trajectory_steps, 6 * 8e15);
}

}  // namespace
}  // namespace nhsim

// User-defined systems in SIMD lanes (docs/design.md "Lanes"): si_dla over their
// tapes evaluated on Lane<W, Isa> gives the scalar path's bits with lanes off and at every width
// of every instruction set this CPU runs, at the fixed sizes and the dynamic one, every tape
// operation included; lanes are refused where the scalar step would sum in Eigen's order (a
// non-diagonal M) or iterate (mu not affine along the constraint forces, several rows).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lane_test_support.hpp"
#include "nhsim/custom/definition.hpp"
#include "nhsim/custom/model.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/lanes.hpp"

namespace nhsim {
namespace {

using test::with_lanes;

std::vector<std::vector<std::string>> diagonal(const std::vector<std::string>& d) {
  std::vector<std::vector<std::string>> m(d.size(), std::vector<std::string>(d.size(), "0"));
  for (std::size_t i = 0; i < d.size(); ++i) m[i][i] = d[i];
  return m;
}

/// The chaotic quartic system of [Celledoni2019] eq. (19)-(20) with n blocks.
CustomSystemSpec quartic(int n) {
  CustomSystemSpec s;
  s.coordinates = {"x"};
  for (int i = 1; i <= n; ++i) s.coordinates.push_back("w" + std::to_string(i));
  for (int i = 1; i <= n; ++i) s.coordinates.push_back("z" + std::to_string(i));
  std::string v = "(";
  for (const std::string& c : s.coordinates) v += c + "^2 + ";
  for (int i = 1; i <= n; ++i) v += "w" + std::to_string(i) + "^2*z" + std::to_string(i) + "^2 + ";
  v += "z1^2*z2^2) / 2";
  s.potential = v;
  s.mass_matrix = diagonal(std::vector<std::string>(s.coordinates.size(), "1"));
  std::vector<std::string> mu = {"1"};
  for (int i = 1; i <= n; ++i) mu.push_back("0");
  for (int i = 1; i <= n; ++i) mu.push_back("w" + std::to_string(i));
  s.constraints = {mu};
  return s;
}

/// A knife edge with a diagonal M != I and a potential of every tape operation (tan, exp, log,
/// sqrt, pow, abs and, from abs's derivative, sign): M^-1 mu^T has no phi component and mu
/// depends on phi only, so si_dla's constraint is affine.
CustomSystemSpec every_operation() {
  CustomSystemSpec s;
  s.coordinates = {"x", "y", "phi"};
  s.parameters = {{"eps", 0.25}};
  s.mass_matrix = diagonal({"2", "3/2", "1/2"});
  s.potential =
      "-x/2 + log(1 + y^2)/3 + sqrt(1 + x^2)/5 + abs(y)/10 + exp(-phi^2)/4 + tan(phi/5)/7 + "
      "pow(1 + x^2, 1/4)/6 + cos(phi)*sin(y)/8";
  s.constraints = {{"sin(phi)", "eps - cos(phi)", "0"}};
  return s;
}

EnsembleSpec ensemble_of(const CustomSystemSpec& sys, double energy, int count) {
  EnsembleSpec s;
  s.custom_system = sys;
  s.initial_conditions = EnergyShellGenerator{energy, 20261122, count, 0.5, 10000};
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.05;
  c.sample_every = 20;
  s.integrators.push_back(c);
  s.t_final = 20.0;
  s.outputs.final_states.all = true;
  s.outputs.sampled.indices = {0, 5, count - 1};
  s.outputs.sampled_state = true;
  return s;
}

std::unique_ptr<LaneStepper> lanes_of(const CustomSystemSpec& sys) {
  const std::unique_ptr<SystemModel> model = make_custom_model(compile_custom_system(sys));
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.05;
  return model->make_lane_stepper(c, {LaneIsa::kBaseline, 2});
}

TEST(CustomLanes, SiDlaInLanesIsTheScalarPathAtEverySizeAndWidth) {
  // (3, 1) and (7, 1) are fixed sizes, (5, 1) and (11, 1) the dynamic one; 37 states leave a
  // partial batch at every width.
  struct Case {
    std::string name;
    CustomSystemSpec sys;
    double energy;
  };
  const std::vector<Case> cases = {{"quartic n = 2", quartic(2), 3.06},
                                   {"quartic n = 3", quartic(3), 3.06},
                                   {"quartic n = 5", quartic(5), 3.06},
                                   {"every operation", every_operation(), 1.0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_NE(lanes_of(c.sys), nullptr);
    const EnsembleSpec s = ensemble_of(c.sys, c.energy, 37);
    const EnsembleResult off = run_ensemble(s, with_lanes({LaneIsa::kOff, 0}));
    ASSERT_EQ(off.integrators[0].trajectories_ok, 37);
    test::expect_bit_identical_at_every_setting(off, s);
  }
}

TEST(CustomLanes, LanesAreRefusedWhereTheScalarStepSumsOrIterates) {
  CustomSystemSpec general_mass = every_operation();
  general_mass.mass_matrix = {{"2", "1/2", "0"}, {"1/2", "3/2", "0"}, {"0", "0", "1/2"}};
  EXPECT_EQ(lanes_of(general_mass), nullptr);
  CustomSystemSpec not_affine = every_operation();
  not_affine.constraints = {{"sin(phi)", "eps - cos(phi)", "x"}};  // moves along M^-1 mu^T
  EXPECT_EQ(lanes_of(not_affine), nullptr);
  CustomSystemSpec two_rows = quartic(3);
  two_rows.constraints.push_back({"0", "1", "0", "0", "0", "0", "x"});
  EXPECT_EQ(lanes_of(two_rows), nullptr);
}

}  // namespace
}  // namespace nhsim

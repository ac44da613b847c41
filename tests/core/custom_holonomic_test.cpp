// User-defined systems with holonomic constraints g(q): the gyroscopic top of
// [Kinon2023] §5.1 written as custom_system gives the built-in's trajectories with ggl and with the
// canonical methods; ggl applies only where the definition admits it; bad holonomic input is
// refused with the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "custom_system_support.hpp"
#include "gyroscopic_top_support.hpp"
#include "nhsim/catalogue.hpp"
#include "nhsim/custom/model.hpp"
#include "nhsim/ensemble.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using test::compare;
using test::sci;
using test::spec_with;
using test::with_custom_system;

/// The top in director coordinates, q = (phi, d1, d2, d3) ([Kinon2023] eq. (59)-(64)), with the
/// paper's data: M = diag(m I, E1 I, E2 I, E3 I), V = m g phi3, the six orthonormality
/// conditions and phi = l d3; L3 as a named invariant.
CustomSystemSpec top_custom() {
  const GyroscopicTop top = test::paper_top();
  CustomSystemSpec s;
  s.coordinates = {"phi1", "phi2", "phi3", "d11", "d12", "d13",
                   "d21",  "d22",  "d23",  "d31", "d32", "d33"};
  s.parameters = {{"m", top.m()},       {"E1", top.euler(1)}, {"E2", top.euler(2)},
                  {"E3", top.euler(3)}, {"l", top.l()},       {"g", top.gravity()}};
  const char* diagonal[] = {"m", "m", "m", "E1", "E1", "E1", "E2", "E2", "E2", "E3", "E3", "E3"};
  for (std::size_t i = 0; i < 12; ++i) {
    std::vector<std::string> row(12, "0");
    row[i].assign(diagonal[i]);
    s.mass_matrix.push_back(row);
  }
  s.potential = "m*g*phi3";
  s.holonomic_constraints = {"(d11^2 + d12^2 + d13^2 - 1)/2",
                             "(d21^2 + d22^2 + d23^2 - 1)/2",
                             "(d31^2 + d32^2 + d33^2 - 1)/2",
                             "d11*d21 + d12*d22 + d13*d23",
                             "d11*d31 + d12*d32 + d13*d33",
                             "d21*d31 + d22*d32 + d23*d33",
                             "phi1 - l*d31",
                             "phi2 - l*d32",
                             "phi3 - l*d33"};
  s.invariants = {{"L3",
                   "phi1*p_phi2 - phi2*p_phi1 + d11*p_d12 - d12*p_d11 + d21*p_d22 - d22*p_d21 + "
                   "d31*p_d32 - d32*p_d31"}};
  return s;
}

/// The steady precession state of [Kinon2023] eq. (65)-(68) (examples/top_precession.json).
CanonicalState top_state() {
  const GyroscopicTop top = test::paper_top();
  GyroscopicTop::VecQ q, p;
  test::paper_state(top, q, p);
  return {std::vector<double>(q.data(), q.data() + 12),
          std::vector<double>(p.data(), p.data() + 12)};
}

/// A spherical pendulum of length 1 in Cartesian coordinates: one quadratic holonomic
/// constraint; `extra` nonholonomic rows or another g make the cases ggl refuses.
CustomSystemSpec pendulum_custom() {
  CustomSystemSpec s;
  s.coordinates = {"x", "y", "z"};
  s.mass_matrix = {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "1"}};
  s.potential = "z";
  s.holonomic_constraints = {"(x^2 + y^2 + z^2 - 1)/2"};
  return s;
}

EnsembleSpec pendulum_spec(const CustomSystemSpec& system, const std::string& id) {
  EnsembleSpec s = spec_with({{{0.6, 0.0, -0.8}, {0.0, 0.5, 0.0}}}, {id}, 0.01, 1.0);
  s.custom_system = system;
  return s;
}

// ggl ([Kinon2023] §4.1) on the custom top against the built-in, with the example's Newton
// tolerance 1e-14; rk2 and dla (velocity level only) too. The tapes round differently from the
// hand-written g and G, so the two agree to the Newton tolerance carried over 1000 steps
// (measured 7.0e-11 relative).
TEST(CustomHolonomic, GyroscopicTopGivesTheBuiltInTrajectories) {
  EnsembleSpec s = spec_with({top_state()}, {"ggl", "rk2", "dla"}, 0.002, 2.0);
  s.integrators[0].newton_tol = 1e-14;
  s.system = "gyroscopic_top";
  const double worst = compare(s, top_custom(), 1e-9);
  RecordProperty("worst_relative_difference", sci(worst));
}

// What ggl is for: g(q) = 0 and the momentum map L3 exactly (to the Newton tolerance), where
// rk2 drifts off g = 0 ([Kinon2023] Fig. 8).
TEST(CustomHolonomic, GglKeepsThePositionConstraintsAndL3) {
  EnsembleSpec s = spec_with({top_state()}, {"ggl", "rk2"}, 0.002, 2.0);
  s.integrators[0].newton_tol = 1e-14;
  s.custom_system = top_custom();
  s.observables = {"position_constraint_residual", "velocity_constraint_residual", "L3"};
  const EnsembleResult r = run_ensemble(s);
  ASSERT_EQ(r.integrators.size(), 2u);
  auto worst = [&](std::size_t c, std::size_t j) {
    double w = 0.0;
    for (double v : r.integrators[c].observables[j].max) w = std::max(w, std::abs(v));
    return w;
  };
  auto l3_drift = [&](std::size_t c) {
    const auto& mean = r.integrators[c].observables[2].mean;
    double d = 0.0;
    for (double v : mean) d = std::max(d, std::abs(v - mean.front()));
    return d;
  };
  EXPECT_EQ(r.integrators[0].trajectories_ok, 1);
  EXPECT_LE(worst(0, 0), 1e-14);  // max |g(q)|, ggl (the built-in: 1.2e-15)
  EXPECT_LE(l3_drift(0), 1e-14);  // kg m^2/s (the built-in: 4.6e-16)
  EXPECT_GE(worst(1, 0), 1e-6);   // rk2 drifts off g = 0
  RecordProperty("ggl_position_residual", sci(worst(0, 0)));
  RecordProperty("ggl_L3_drift", sci(l3_drift(0)));
  RecordProperty("rk2_position_residual", sci(worst(1, 0)));
}

/// validate(s)'s SpecError as "field: reason", or "(valid)".
std::string error_of(const EnsembleSpec& s) {
  try {
    validate(s);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(valid)";
}

/// The pendulum with a fourth coordinate s held by a nonholonomic row: G = (x, y, z, 0) and
/// mu^2 = (0, 0, 0, 1).
EnsembleSpec pendulum_with_row(const std::string& id) {
  CustomSystemSpec mixed = pendulum_custom();
  mixed.coordinates.push_back("s");
  mixed.mass_matrix = {
      {"1", "0", "0", "0"}, {"0", "1", "0", "0"}, {"0", "0", "1", "0"}, {"0", "0", "0", "1"}};
  mixed.constraints = {{"0", "0", "0", "1"}};
  EnsembleSpec s = spec_with({{{0.6, 0.0, -0.8, 0.0}, {0.0, 0.5, 0.0, 0.0}}}, {id}, 0.01, 1.0);
  s.custom_system = mixed;
  return s;
}

bool lists(const SystemInfo& info, const std::string& id) {
  return std::find(info.integrators.begin(), info.integrators.end(), id) != info.integrators.end();
}

TEST(CustomHolonomic, GglAppliesOnlyWhereTheDefinitionAdmitsIt) {
  EXPECT_EQ(error_of(pendulum_spec(pendulum_custom(), "ggl")), "(valid)");
  EXPECT_TRUE(lists(custom_system_info(compile_custom_system(pendulum_custom()).get()), "ggl"));

  // A nonholonomic row besides: the canonical methods apply, ggl does not.
  EXPECT_EQ(error_of(pendulum_with_row("rk2")), "(valid)");
  EXPECT_EQ(error_of(pendulum_with_row("ggl")),
            "integrators[0].integrator: does not apply to this custom_system: needs holonomic "
            "constraints only, and custom_system.constraints has 1 nonholonomic rows");
  const auto mixed = compile_custom_system(*pendulum_with_row("ggl").custom_system);
  EXPECT_FALSE(lists(custom_system_info(mixed.get()), "ggl"));
  EXPECT_TRUE(lists(custom_system_info(mixed.get()), "rk2"));

  // A g that is not quadratic in q: its Hessian varies, which ggl's Jacobian does not take.
  CustomSystemSpec curved = pendulum_custom();
  curved.holonomic_constraints = {"(x^2 + y^2 + z^2 - 1)/2 + (z + 0.8)^3"};
  EXPECT_EQ(error_of(pendulum_spec(curved, "dla")), "(valid)");
  EXPECT_EQ(error_of(pendulum_spec(curved, "ggl")),
            "integrators[0].integrator: does not apply to this custom_system: needs constant "
            "constraint Hessians, and custom_system.holonomic_constraints[0] is not at most "
            "quadratic in q");

  // No holonomic constraints: refused by the system type (the catalogue's reason) at
  // validation, and by the model of a dynamic size that could run ggl's code.
  const std::string ggl_requirement = not_applicable("knife_edge", "ggl").value_or("");
  CustomSystemSpec knife = pendulum_custom();
  knife.holonomic_constraints.clear();
  knife.constraints = {{"0", "0", "1"}};
  EXPECT_EQ(
      error_of(pendulum_spec(knife, "ggl")),
      "integrators[0].integrator: does not apply to system 'custom_system': " + ggl_requirement);
  CustomSystemSpec wide = *pendulum_with_row("rk2").custom_system;
  wide.holonomic_constraints.clear();
  wide.constraints = {{"0", "0", "1", "0"}, {"0", "0", "0", "1"}};
  IntegratorChoice ggl;
  ggl.integrator = "ggl";
  ggl.h = 0.01;
  try {
    make_custom_model(compile_custom_system(wide))->make_stepper(ggl);
    ADD_FAILURE() << "ggl without holonomic constraints made a stepper";
  } catch (const SpecError& e) {
    EXPECT_STREQ(e.what(),
                 "integrator: needs holonomic constraints (custom_system.holonomic_constraints)");
  }
}

TEST(CustomHolonomic, HolonomicErrorsNameTheField) {
  auto with = [](auto edit) {
    CustomSystemSpec system = pendulum_custom();
    EnsembleSpec s = pendulum_spec(system, "ggl");
    edit(*s.custom_system, std::get<ExplicitStates>(s.initial_conditions).states.edit()[0]);
    return error_of(s);
  };
  using State = CanonicalState;
  EXPECT_EQ(with([](CustomSystemSpec& c, State&) { c.holonomic_constraints = {"1 - 1/2"}; }),
            "custom_system.holonomic_constraints[0]: is constant in q: a holonomic constraint "
            "must depend on the coordinates");
  EXPECT_TRUE(with([](CustomSystemSpec& c, State&) {
                c.holonomic_constraints = {"(x^2 + y^2 - 1"};
              }).starts_with("custom_system.holonomic_constraints[0]: at position "));
  EXPECT_EQ(with([](CustomSystemSpec& c, State&) {
              c.holonomic_constraints = {"x", "y", "z"};
            }),
            "custom_system.holonomic_constraints: 3 holonomic constraints and 0 constraint rows "
            "for 3 coordinates: together they must be fewer than the coordinates");
  EXPECT_EQ(with([](CustomSystemSpec& c, State&) { c.mass_matrix[0][0] = "1 + z^2"; }),
            "custom_system.holonomic_constraints: need a constant mass matrix in this release (M "
            "depends on q)");
  EXPECT_EQ(with([](CustomSystemSpec& c, State&) {
              c.control_forces = {{"1", "0", "0"}};
            }),
            "custom_system.holonomic_constraints: cannot be combined with control_forces in this "
            "release");
  // Off g(q) = 0, and on it where G loses rank (g = x^2/2 at x = 0).
  EXPECT_TRUE(with([](CustomSystemSpec&, State& s) {
                s.q = {0.6, 0.0, -0.7};
              })
                  .starts_with("initial_conditions.states[0].q: off the holonomic constraints: "
                               "max |g(q)| = "));
  EXPECT_EQ(with([](CustomSystemSpec& c, State& s) {
              c.holonomic_constraints = {"x^2/2"};
              s = {{0.0, 0.3, 0.0}, {0.0, 0.0, 1.0}};
            }),
            "custom_system.holonomic_constraints: mu(q) has rank 0 < 1 rows at "
            "initial_conditions.states[0]");
  EXPECT_EQ(with([](CustomSystemSpec&, State&) {}), "(valid)");
  // A random q violates g(q) = 0: the energy shell is refused (as for the catalogue's top).
  EnsembleSpec shell = pendulum_spec(pendulum_custom(), "ggl");
  shell.initial_conditions = EnergyShellGenerator{};
  EXPECT_TRUE(
      error_of(shell).starts_with("initial_conditions.energy_shell: not available for a "
                                  "system with holonomic constraints"));
}

}  // namespace
}  // namespace nhsim

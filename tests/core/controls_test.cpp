// Controls as data (nhsim/controls.hpp): evaluation of each kind, validation naming the field,
// and the ensemble path: controls on the snakeboard, the sleigh's skate point as an observable.
#include "nhsim/controls.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nhsim/ensemble.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/snakeboard.hpp"

namespace nhsim {
namespace {

using K = ControlSpec::Kind;

ControlSpec make(K kind, double value, double amplitude, double omega, double phase) {
  ControlSpec c;
  c.kind = kind;
  c.value = value;
  c.amplitude = amplitude;
  c.omega = omega;
  c.phase = phase;
  return c;
}

TEST(Controls, EachKindEvaluates) {
  EXPECT_EQ(ControlSignal()(3.0), 0.0);
  EXPECT_EQ(ControlSignal(make(K::kConstant, 2.5, 0, 0, 0))(7.0), 2.5);
  EXPECT_NEAR(ControlSignal(make(K::kSine, 0, 2.0, 3.0, 0.5))(0.7), 2.0 * std::sin(2.6), 1e-15);
  EXPECT_NEAR(ControlSignal(make(K::kCosine, 0, 2.0, 3.0, 0.5))(0.7), 2.0 * std::cos(2.6), 1e-15);
  ControlSpec t;
  t.kind = K::kTable;
  t.times = {0.0, 1.0, 3.0};
  t.values = {1.0, 3.0, -1.0};
  const ControlSignal u(t);
  EXPECT_EQ(u(-1.0), 1.0);  // held before the first point
  EXPECT_EQ(u(0.0), 1.0);
  EXPECT_NEAR(u(0.25), 1.5, 1e-15);
  EXPECT_NEAR(u(2.0), 1.0, 1e-15);
  EXPECT_EQ(u(3.0), -1.0);
  EXPECT_EQ(u(9.0), -1.0);  // held after the last
}

void expect_field(const std::vector<ControlSpec>& c, int n, const std::string& field) {
  try {
    validate_controls(c, n, "sys");
    ADD_FAILURE() << "no error, expected " << field;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(Controls, ValidationNamesTheField) {
  const ControlSpec ok = make(K::kSine, 0, 1, 1, 0);
  EXPECT_NO_THROW(validate_controls({}, 2, "sys"));
  EXPECT_NO_THROW(validate_controls({ok, ok}, 2, "sys"));
  expect_field({ok}, 2, "controls");
  expect_field({ok}, 0, "controls");
  expect_field({ok, make(K::kSine, 0, 1, std::nan(""), 0)}, 2, "controls[1].omega");
  expect_field({make(K::kUnspecified, 0, 0, 0, 0), ok}, 2, "controls[0].kind");
  expect_field({make(K::kConstant, 1, 0, 2.0, 0), ok}, 2, "controls[0].omega");
  expect_field({make(K::kCosine, 1, 1, 1, 0), ok}, 2, "controls[0].value");
  expect_field({make(K::kSine, 0, INFINITY, 1, 0), ok}, 2, "controls[0].amplitude");
  ControlSpec t;
  t.kind = K::kTable;
  expect_field({ok, t}, 2, "controls[1].times");
  t.times = {0.0, 1.0};
  t.values = {1.0};
  expect_field({ok, t}, 2, "controls[1].values");
  t.times = {0.0, 1.0, 1.0};
  t.values = {1.0, 2.0, 3.0};
  expect_field({ok, t}, 2, "controls[1].times[2]");
  t.times = {0.0, 1.0, 2.0};
  t.values = {1.0, NAN, 3.0};
  expect_field({ok, t}, 2, "controls[1].values[1]");
  ControlSpec s = ok;
  s.times = {1.0};
  expect_field({s, ok}, 2, "controls[0].times");
}

EnsembleSpec board_spec() {
  EnsembleSpec s;
  s.system = "snakeboard";
  const Snakeboard sys(1.0, 1.0, 0.5, 2.0);
  Snakeboard::VecQ q, p;
  sys.state_from_shape(M_PI / 2, M_PI / 3, 0, 0, 0, 2.5, -0.02, -1.0, q, p);
  std::get<ExplicitStates>(s.initial_conditions)
      .states.push_back({std::vector<double>(q.data(), q.data() + 5),
                         std::vector<double>(p.data(), p.data() + 5)});
  IntegratorChoice c;
  c.integrator = "nh_rattle";
  c.h = 10.0 / 128;
  c.sample_every = 128;
  s.integrators.push_back(c);
  s.t_final = 10.0;
  s.observables = {"q[3]", "q[4]", "constraint_residual"};
  return s;
}

TEST(Controls, EnsembleRunsTheControlledSnakeboard) {
  EnsembleSpec s = board_spec();
  const EnsembleResult free_run = run_ensemble(s);
  s.controls = {make(K::kCosine, 0, 1.0, 20 * M_PI, 0), make(K::kSine, 0, 1.0, 2 * M_PI, 0)};
  const EnsembleResult controlled = run_ensemble(s);
  const auto& a = free_run.integrators[0].observables;
  const auto& b = controlled.integrators[0].observables;
  ASSERT_EQ(b[0].mean.size(), 2u);
  EXPECT_GT(std::abs(a[0].mean[1] - b[0].mean[1]) + std::abs(a[1].mean[1] - b[1].mean[1]), 1e-3);
  EXPECT_LT(b[2].max[1], 1e-13);
  // Invalid controls and refused integrators, through validate().
  s.controls[1].omega = NAN;
  try {
    validate(s);
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "controls[1].omega");
  }
  s.controls.pop_back();
  try {
    validate(s);
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "controls");
  }
  s.controls.clear();
  s.integrators[0].integrator = "gonzalez_f";
  try {
    validate(s);
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "integrators[0].integrator");
    EXPECT_NE(std::string(e.what()).find("control"), std::string::npos) << e.what();
  }
}

TEST(Controls, SystemsWithoutInputsRefuseControlsAndSkatePointIsAnObservable) {
  EnsembleSpec s;
  s.system = "chaplygin_sleigh_com";
  const ChaplyginSleighCom sys(1.0, 1.0, 1.0);
  ChaplyginSleighCom::VecQ q, p;
  sys.state_from_velocities(0.0, 0.0, 0.0, 0.5, -1.0, q, p);
  std::get<ExplicitStates>(s.initial_conditions)
      .states.push_back({std::vector<double>(q.data(), q.data() + 3),
                         std::vector<double>(p.data(), p.data() + 3)});
  IntegratorChoice c;
  c.integrator = "nh_rattle";
  c.h = 0.1;
  c.sample_every = 40;
  s.integrators.push_back(c);
  s.t_final = 8.0;
  s.observables = {"x_s", "y_s", "energy_error"};
  const EnsembleResult r = run_ensemble(s);
  const auto& obs = r.integrators[0].observables;
  EXPECT_EQ(obs[0].observable, "x_s");
  EXPECT_NEAR(obs[0].mean[0], -1.0, 1e-15);  // x - a cos(0)
  EXPECT_NEAR(obs[1].mean[0], 0.0, 1e-15);
  EXPECT_LT(std::abs(obs[2].mean.back()), 0.05);  // node energy of the GNI: O(h^2), bounded
  s.observables = {"z_s"};
  try {
    validate(s);
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "observables[0]");
    EXPECT_NE(std::string(e.what()).find("x_s"), std::string::npos) << e.what();
  }
  s.observables.clear();
  s.controls = {make(K::kConstant, 1, 0, 0, 0)};
  try {
    validate(s);
    ADD_FAILURE();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "controls");
  }
}

}  // namespace
}  // namespace nhsim

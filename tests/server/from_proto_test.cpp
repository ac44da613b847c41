// server/wire::from_proto.cpp: the wire spec becomes the core spec field by field, with the wire
// defaults documented in from_proto.hpp.
#include "nhsim/wire/from_proto.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim::server {
namespace {

v1::SubmitEnsembleRequest shell_request() {
  v1::SubmitEnsembleRequest request;
  request.set_system("chaotic_quartic");
  (*request.mutable_parameters())["n"] = 2;
  auto* shell = request.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(0xfedcba9876543210ULL);
  shell->set_count(17);
  auto* choice = request.add_integrators();
  choice->set_integrator("gonzalez");
  choice->set_h(0.025);
  choice->set_sample_every(7);
  choice->set_newton_tol(1e-12);
  choice->set_newton_max_iter(33);
  request.add_integrators()->set_integrator("rk4");
  request.set_t_final(12.5);
  request.add_observables("energy_error");
  request.add_observables("q[2]");
  request.set_label("not part of the spec");
  return request;
}

TEST(FromProto, CopiesEveryFieldUnderTheSameName) {
  const EnsembleSpec spec = wire::from_proto(shell_request());
  EXPECT_EQ(spec.system, "chaotic_quartic");
  EXPECT_EQ(spec.parameters, (std::map<std::string, double>{{"n", 2.0}}));
  ASSERT_TRUE(std::holds_alternative<EnergyShellGenerator>(spec.initial_conditions));
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).energy, 3.06);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).seed, 0xfedcba9876543210ULL);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).count, 17);
  ASSERT_EQ(spec.integrators.size(), 2U);
  EXPECT_EQ(spec.integrators[0].integrator, "gonzalez");
  EXPECT_EQ(spec.integrators[0].h, 0.025);
  EXPECT_EQ(spec.integrators[0].sample_every, 7);
  EXPECT_EQ(spec.integrators[0].newton_tol, 1e-12);
  EXPECT_EQ(spec.integrators[0].newton_max_iter, 33);
  EXPECT_EQ(spec.integrators[1].integrator, "rk4");
  EXPECT_EQ(spec.t_final, 12.5);
  EXPECT_EQ(spec.observables, (std::vector<std::string>{"energy_error", "q[2]"}));
}

TEST(FromProto, UnsetOptionalFieldsKeepTheCoreDefaults) {
  const EnsembleSpec spec = wire::from_proto(shell_request());
  const EnergyShellGenerator core_defaults;
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).q_std, core_defaults.q_std);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).max_attempts,
            core_defaults.max_attempts);
  // The second choice sets nothing but its name: sample_every 1, Newton settings 0 (defaults).
  const IntegratorChoice core_choice;
  EXPECT_EQ(spec.integrators[1].sample_every, core_choice.sample_every);
  EXPECT_EQ(spec.integrators[1].newton_tol, 0.0);
  EXPECT_EQ(spec.integrators[1].newton_max_iter, 0);
  EXPECT_EQ(spec.integrators[1].h, 0.0);
}

TEST(FromProto, ExplicitValuesOfOptionalFieldsPassThroughEvenWhenZero) {
  auto request = shell_request();
  auto* shell = request.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_q_std(0.0);
  shell->set_max_attempts(0);
  request.mutable_integrators(0)->set_sample_every(0);
  const EnsembleSpec spec = wire::from_proto(request);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).q_std, 0.0);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec.initial_conditions).max_attempts, 0);
  EXPECT_EQ(spec.integrators[0].sample_every, 0);  // for validate() to reject
  shell->set_q_std(0.25);
  shell->set_max_attempts(5);
  const EnsembleSpec spec2 = wire::from_proto(request);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec2.initial_conditions).q_std, 0.25);
  EXPECT_EQ(std::get<EnergyShellGenerator>(spec2.initial_conditions).max_attempts, 5);
}

TEST(FromProto, CopiesExplicitStatesInOrder) {
  auto request = shell_request();
  auto* initial = request.mutable_initial_conditions();
  initial->clear_energy_shell();
  auto* a = initial->add_states();
  a->add_q(1.0);
  a->add_q(2.0);
  a->add_p(-3.0);
  auto* b = initial->add_states();
  b->add_q(4.0);
  b->add_p(5.0);
  b->add_p(6.0);
  const EnsembleSpec spec = wire::from_proto(request);
  ASSERT_TRUE(std::holds_alternative<ExplicitStates>(spec.initial_conditions));
  ASSERT_EQ(std::get<ExplicitStates>(spec.initial_conditions).states.size(), 2U);
  EXPECT_EQ(std::get<ExplicitStates>(spec.initial_conditions).states[0].q,
            (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(std::get<ExplicitStates>(spec.initial_conditions).states[0].p,
            (std::vector<double>{-3.0}));
  EXPECT_EQ(std::get<ExplicitStates>(spec.initial_conditions).states[1].q,
            (std::vector<double>{4.0}));
  EXPECT_EQ(std::get<ExplicitStates>(spec.initial_conditions).states[1].p,
            (std::vector<double>{5.0, 6.0}));
}

TEST(FromProto, RejectsTwoInitialConditionSourcesAndMapsNoneToZeroStates) {
  auto both = shell_request();
  both.mutable_initial_conditions()->add_states()->add_q(1.0);
  try {
    wire::from_proto(both);
    FAIL() << "both states and energy_shell accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "initial_conditions");
  }
  // Neither: an empty list of explicit states, which the core's validation refuses (the one
  // place that rule is checked).
  auto neither = shell_request();
  neither.clear_initial_conditions();
  neither.mutable_integrators(1)->set_h(0.025);  // valid up to the initial conditions
  const EnsembleSpec none = wire::from_proto(neither);
  ASSERT_TRUE(std::holds_alternative<ExplicitStates>(none.initial_conditions));
  try {
    validate(none);
    FAIL() << "no initial conditions accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "initial_conditions");
    EXPECT_NE(std::string(e.what()).find("zero trajectories"), std::string::npos);
  }
  // An empty energy_shell message is present: the count (0) is for validate() to reject.
  auto empty_shell = shell_request();
  empty_shell.mutable_initial_conditions()->mutable_energy_shell()->Clear();
  EXPECT_TRUE(std::holds_alternative<EnergyShellGenerator>(
      wire::from_proto(empty_shell).initial_conditions));
}

TEST(FromProto, CopiesAVelocityPerturbation) {
  auto request = shell_request();
  request.mutable_initial_conditions()->clear_energy_shell();
  auto* vp = request.mutable_initial_conditions()->mutable_velocity_perturbation();
  vp->mutable_base()->add_q(1.0);
  vp->mutable_base()->add_q(2.0);
  vp->mutable_base()->add_p(3.0);
  vp->set_v_std(0.25);
  vp->set_seed(99);
  vp->set_count(64);
  const EnsembleSpec spec = wire::from_proto(request);
  ASSERT_TRUE(std::holds_alternative<VelocityPerturbation>(spec.initial_conditions));
  const auto& vp_core = std::get<VelocityPerturbation>(spec.initial_conditions);
  EXPECT_EQ(vp_core.base.q, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(vp_core.base.p, (std::vector<double>{3.0}));
  EXPECT_EQ(vp_core.v_std, 0.25);
  EXPECT_EQ(vp_core.seed, 99U);
  EXPECT_EQ(vp_core.count, 64);
  // With an energy shell as well: two sources.
  auto both = request;
  both.mutable_initial_conditions()->mutable_energy_shell()->set_count(3);
  try {
    wire::from_proto(both);
    FAIL() << "energy_shell and velocity_perturbation accepted together";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "initial_conditions");
    EXPECT_NE(std::string(e.what()).find("exactly one"), std::string::npos);
  }
}

TEST(FromProto, CopiesControlsInOrderWithTheirKinds) {
  auto request = shell_request();
  auto* c0 = request.add_controls();
  c0->set_kind(v1::Control::COSINE);
  c0->set_amplitude(1.5);
  c0->set_omega(62.8);
  c0->set_phase(0.25);
  auto* c1 = request.add_controls();
  c1->set_kind(v1::Control::TABLE);
  c1->add_times(0.0);
  c1->add_times(2.0);
  c1->add_values(1.0);
  c1->add_values(-1.0);
  request.add_controls()->set_value(3.0);  // kind unset: KIND_UNSPECIFIED
  auto* c3 = request.add_controls();
  c3->set_kind(v1::Control::CONSTANT);
  c3->set_value(-2.0);
  request.add_controls()->set_kind(v1::Control::SINE);
  const EnsembleSpec spec = wire::from_proto(request);
  ASSERT_EQ(spec.controls.size(), 5U);
  EXPECT_EQ(spec.controls[0].kind, ControlSpec::Kind::kCosine);
  EXPECT_EQ(spec.controls[0].amplitude, 1.5);
  EXPECT_EQ(spec.controls[0].omega, 62.8);
  EXPECT_EQ(spec.controls[0].phase, 0.25);
  EXPECT_EQ(spec.controls[1].kind, ControlSpec::Kind::kTable);
  EXPECT_EQ(spec.controls[1].times, (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(spec.controls[1].values, (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(spec.controls[2].kind, ControlSpec::Kind::kUnspecified);
  EXPECT_EQ(spec.controls[2].value, 3.0);
  EXPECT_EQ(spec.controls[3].kind, ControlSpec::Kind::kConstant);
  EXPECT_EQ(spec.controls[3].value, -2.0);
  EXPECT_EQ(spec.controls[4].kind, ControlSpec::Kind::kSine);
  EXPECT_TRUE(wire::from_proto(shell_request()).controls.empty());
}

// Loads ([Gebhardt2020] eq. (84)): copied in order; validation names the exact field.
v1::SubmitEnsembleRequest load_request() {
  v1::SubmitEnsembleRequest request;
  request.set_system("nontwisting_body");
  auto* s = request.mutable_initial_conditions()->add_states();
  for (double x : {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}) s->add_q(x);
  for (int i = 0; i < 9; ++i) s->add_p(0.0);
  auto* choice = request.add_integrators();
  choice->set_integrator("em");
  choice->set_h(0.005);
  request.set_t_final(0.01);
  auto* l = request.add_loads();
  for (double x : {-2472.5, -1075.0, 0.0}) l->add_direction(x);
  auto* f = l->mutable_profile();
  f->set_kind(v1::Control::TABLE);
  for (double t : {0.0, 0.5, 1.0}) f->add_times(t);
  for (double v : {0.0, 1.0, 0.0}) f->add_values(v);
  return request;
}

std::string field_of(const v1::SubmitEnsembleRequest& request) {
  try {
    validate(wire::from_proto(request));
  } catch (const SpecError& e) {
    return e.field();
  }
  return "";
}

TEST(FromProto, CopiesLoadsAndValidationNamesTheField) {
  const auto request = load_request();
  const EnsembleSpec spec = wire::from_proto(request);
  ASSERT_EQ(spec.loads.size(), 1U);
  EXPECT_EQ(spec.loads[0].direction, (std::vector<double>{-2472.5, -1075.0, 0.0}));
  EXPECT_EQ(spec.loads[0].profile.kind, ControlSpec::Kind::kTable);
  EXPECT_EQ(spec.loads[0].profile.values, (std::vector<double>{0.0, 1.0, 0.0}));
  EXPECT_EQ(field_of(request), "");
  auto two = request;
  two.add_loads()->add_direction(1.0);  // 1 component
  EXPECT_EQ(field_of(two), "loads[1].direction");
  auto nan = request;
  nan.mutable_loads(0)->set_direction(2, std::nan(""));
  EXPECT_EQ(field_of(nan), "loads[0].direction");
  auto times = request;
  times.mutable_loads(0)->mutable_profile()->set_times(1, 0.0);  // not increasing
  EXPECT_EQ(field_of(times), "loads[0].profile.times[1]");
  auto kind = request;
  kind.mutable_loads(0)->mutable_profile()->set_kind(v1::Control::KIND_UNSPECIFIED);
  EXPECT_EQ(field_of(kind), "loads[0].profile.kind");
  auto values = request;
  values.mutable_loads(0)->mutable_profile()->add_values(1.0);
  EXPECT_EQ(field_of(values), "loads[0].profile.values");
  // A system without loads: INVALID_ARGUMENT on "loads".
  auto sleigh = request;
  sleigh.set_system("chaplygin_sleigh");
  EXPECT_EQ(field_of(sleigh), "loads");
}

}  // namespace
}  // namespace nhsim::server

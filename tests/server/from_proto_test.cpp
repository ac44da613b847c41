// server/from_proto.cpp: the wire spec becomes the core spec field by field, with the wire
// defaults documented in from_proto.hpp.
#include "nhsim/server/from_proto.hpp"

#include <gtest/gtest.h>

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
  const EnsembleSpec spec = from_proto(shell_request());
  EXPECT_EQ(spec.system, "chaotic_quartic");
  EXPECT_EQ(spec.parameters, (std::map<std::string, double>{{"n", 2.0}}));
  ASSERT_TRUE(spec.initial_conditions.use_energy_shell);
  EXPECT_TRUE(spec.initial_conditions.states.empty());
  EXPECT_EQ(spec.initial_conditions.energy_shell.energy, 3.06);
  EXPECT_EQ(spec.initial_conditions.energy_shell.seed, 0xfedcba9876543210ULL);
  EXPECT_EQ(spec.initial_conditions.energy_shell.count, 17);
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
  const EnsembleSpec spec = from_proto(shell_request());
  const EnergyShellGenerator core_defaults;
  EXPECT_EQ(spec.initial_conditions.energy_shell.q_std, core_defaults.q_std);
  EXPECT_EQ(spec.initial_conditions.energy_shell.max_attempts, core_defaults.max_attempts);
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
  const EnsembleSpec spec = from_proto(request);
  EXPECT_EQ(spec.initial_conditions.energy_shell.q_std, 0.0);
  EXPECT_EQ(spec.initial_conditions.energy_shell.max_attempts, 0);
  EXPECT_EQ(spec.integrators[0].sample_every, 0);  // for validate() to reject
  shell->set_q_std(0.25);
  shell->set_max_attempts(5);
  const EnsembleSpec spec2 = from_proto(request);
  EXPECT_EQ(spec2.initial_conditions.energy_shell.q_std, 0.25);
  EXPECT_EQ(spec2.initial_conditions.energy_shell.max_attempts, 5);
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
  const EnsembleSpec spec = from_proto(request);
  EXPECT_FALSE(spec.initial_conditions.use_energy_shell);
  ASSERT_EQ(spec.initial_conditions.states.size(), 2U);
  EXPECT_EQ(spec.initial_conditions.states[0].q, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(spec.initial_conditions.states[0].p, (std::vector<double>{-3.0}));
  EXPECT_EQ(spec.initial_conditions.states[1].q, (std::vector<double>{4.0}));
  EXPECT_EQ(spec.initial_conditions.states[1].p, (std::vector<double>{5.0, 6.0}));
}

TEST(FromProto, RejectsBothOrNeitherInitialConditionKinds) {
  auto both = shell_request();
  both.mutable_initial_conditions()->add_states()->add_q(1.0);
  try {
    from_proto(both);
    FAIL() << "both states and energy_shell accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "initial_conditions");
  }
  auto neither = shell_request();
  neither.clear_initial_conditions();
  try {
    from_proto(neither);
    FAIL() << "no initial conditions accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "initial_conditions");
  }
  // An empty energy_shell message is present: the count (0) is for validate() to reject.
  auto empty_shell = shell_request();
  empty_shell.mutable_initial_conditions()->mutable_energy_shell()->Clear();
  EXPECT_TRUE(from_proto(empty_shell).initial_conditions.use_energy_shell);
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
  const EnsembleSpec spec = from_proto(request);
  const auto& ic = spec.initial_conditions;
  EXPECT_FALSE(ic.use_energy_shell);
  ASSERT_TRUE(ic.use_velocity_perturbation);
  EXPECT_EQ(ic.velocity_perturbation.base.q, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(ic.velocity_perturbation.base.p, (std::vector<double>{3.0}));
  EXPECT_EQ(ic.velocity_perturbation.v_std, 0.25);
  EXPECT_EQ(ic.velocity_perturbation.seed, 99U);
  EXPECT_EQ(ic.velocity_perturbation.count, 64);
  // With an energy shell as well: two sources.
  auto both = request;
  both.mutable_initial_conditions()->mutable_energy_shell()->set_count(3);
  try {
    from_proto(both);
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
  const EnsembleSpec spec = from_proto(request);
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
  EXPECT_TRUE(from_proto(shell_request()).controls.empty());
}

}  // namespace
}  // namespace nhsim::server

// The director rigid bodies of [Gebhardt2020] (nontwisting_body, rigid_body): inertia, observables,
// loads as data (eq. (84), (115)-(118)) and a run through the ensemble engine. The integrators
// on them are tested in em_test.cpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "director_body_support.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/model.hpp"

namespace nhsim {
namespace {

using Body = NontwistingBody;
using VecQ = Body::VecQ;
using test::Case;
using test::paper_load;

TEST(NontwistingBody, InertiaOfEq111AndParameterValidation) {
  const Body body(3.0, 1.0 / 7.0, 2.0, 1.0);
  Eigen::Matrix3d j;
  j << 3.0, -1.0 / 7.0, 0.0, -1.0 / 7.0, 4.0, 0.0, 0.0, 0.0, 5.0;
  EXPECT_LT((body.convected_inertia() - j).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_THROW(Body(-1.0, 0.0, 2.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Body(1.0, 2.0, 2.0, 1.0), std::invalid_argument);  // E11 E22 < E12^2
  const SystemEntry* e = find_system("nontwisting_body");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->info.parameters.size(), 4U);
  EXPECT_EQ(e->info.parameters[1].name, "E12");
  EXPECT_EQ(e->info.parameters[1].default_value, 1.0 / 7.0);
  try {
    e->make(complete_parameters(*e, {{"E12", 3.0}}));
    ADD_FAILURE() << "indefinite Euler tensor accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "parameters.E12");
  }
  // Only integrators that take loads apply (the system declares loads).
  EXPECT_EQ(e->info.integrators,
            (std::vector<std::string>{"rk4", "dla", "nh_rattle", "nh_rattle_projected", "rk2", "em"}));
  const auto why = e->not_applicable("gonzalez_f");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("loads"), std::string::npos) << *why;
  EXPECT_EQ(find_system("rigid_body")->info.integrators, e->info.integrators);
}

TEST(NontwistingBody, ObservablesAtTheCase1InitialState) {
  const Case c(1);
  // W = (6, -18, 0): Pi = J W = (18 + 18/7, -6/7 - 72, 0), K = 1/2 W . J W.
  EXPECT_NEAR(c.body.observable(0, c.q0, c.p0), 18.0 + 18.0 / 7.0, 1e-12);
  EXPECT_NEAR(c.body.observable(1, c.q0, c.p0), -6.0 / 7.0 - 72.0, 1e-12);
  EXPECT_NEAR(c.body.observable(2, c.q0, c.p0), 0.0, 1e-12);
  const double k = 0.5 * (6.0 * (18.0 + 18.0 / 7.0) + 18.0 * (6.0 / 7.0 + 72.0));
  EXPECT_NEAR(c.body.observable(3, c.q0, c.p0), k, 1e-10);
  EXPECT_LT(c.body.constraint_residual(c.q0, c.p0), 1e-14);
}

TEST(NontwistingBody, LoadsAreValidatedWithTheExactField) {
  Body body(3.0, 1.0 / 7.0, 2.0, 1.0);
  auto field = [&](const std::vector<LoadSpec>& loads) -> std::string {
    try {
      body.set_loads(loads);
    } catch (const SpecError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field({paper_load(1.0)}), "");
  LoadSpec short_dir = paper_load(1.0);
  short_dir.direction = {1.0, 2.0};
  EXPECT_EQ(field({paper_load(1.0), short_dir}), "loads[1].direction");
  LoadSpec bad_times = paper_load(1.0);
  bad_times.profile.times = {0.0, 1.0, 1.0};
  EXPECT_EQ(field({bad_times}), "loads[0].profile.times[2]");
  LoadSpec no_kind = paper_load(1.0);
  no_kind.profile.kind = ControlSpec::Kind::kUnspecified;
  EXPECT_EQ(field({no_kind}), "loads[0].profile.kind");
  // A system without loads refuses any: SpecError("loads").
  const auto model = find_system("chaplygin_sleigh")
                         ->make(complete_parameters(*find_system("chaplygin_sleigh"), {}));
  try {
    model->set_loads({paper_load(1.0)});
    ADD_FAILURE() << "loads accepted by the sleigh";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "loads");
  }
  EXPECT_NO_THROW(model->set_loads({}));
}

TEST(NontwistingBody, LoadIsTheMaterialTorqueOfEq84) {
  Body body(3.0, 1.0 / 7.0, 2.0, 1.0);
  body.set_loads({paper_load(1.0)});
  EXPECT_EQ(body.material_torque(0.25), Eigen::Vector3d(-2472.5 * 0.5, -1075.0 * 0.5, 0.0));
  EXPECT_EQ(body.material_torque(1.5), Eigen::Vector3d::Zero());
  // Virtual work on a rigid variation delta d_i = dtheta x d_i is dtheta . m (eq. (79)).
  const Eigen::Matrix3d r = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  VecQ q, p, f, dq;
  body.state_from_rotation(r, Eigen::Vector3d::Zero(), q, p);
  body.applied_force(q, 0.75, f);
  const Eigen::Vector3d dth(0.3, -0.2, 0.5);
  for (int i = 0; i < 3; ++i) dq.segment<3>(3 * i) = dth.cross(Eigen::Vector3d(r.col(i)));
  const Eigen::Vector3d m = r * body.material_torque(0.75);
  EXPECT_NEAR(f.dot(dq), dth.dot(m), 1e-10);
}

// Through the engine: spec with loads, em and dla, observables by name.
TEST(NontwistingBody, RunsThroughTheEnsembleWithLoads) {
  const Case c(3);
  EnsembleSpec spec;
  spec.system = "nontwisting_body";
  std::get<ExplicitStates>(spec.initial_conditions)
      .states.push_back({std::vector<double>(c.q0.data(), c.q0.data() + 9),
                         std::vector<double>(c.p0.data(), c.p0.data() + 9)});
  spec.loads = {paper_load(0.5)};
  IntegratorChoice em;
  em.integrator = "em";
  em.h = 0.005;
  em.sample_every = 200;
  em.newton_tol = 1e-10;
  spec.integrators = {em};
  spec.t_final = 5.0;
  spec.observables = {"Pi1", "Pi2", "Pi3", "kinetic_energy", "d3_1", "constraint_residual"};
  const EnsembleResult res = run_ensemble(spec);
  ASSERT_EQ(res.integrators.size(), 1U);
  const auto& ir = res.integrators[0];
  ASSERT_EQ(ir.trajectories_ok, 1);
  ASSERT_EQ(ir.sample_times.size(), 6U);
  const auto& pi1 = ir.observables[0].mean;
  EXPECT_NEAR(pi1[0], 27.0 / 7.0, 1e-12);  // Pi1(0) = J11 W1 + J12 W2 = 4.5 - 4.5/7
  EXPECT_NEAR(pi1[5], pi1[1], 1e-7 * std::abs(pi1[1]));
  spec.loads[0].direction = {1.0};
  try {
    validate(spec);
    ADD_FAILURE() << "bad load accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "loads[0].direction");
  }
}

}  // namespace
}  // namespace nhsim

// The director rigid bodies of seed 004 (nontwisting_body, rigid_body), the `em` integrator
// (eq. (85)-(95)) and `dla` on them (§6.4), loads as data (eq. (84), (115)-(118)).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "nhsim/integrators/all.hpp"
#include "nhsim/model.hpp"
#include "nhsim/systems/director_body.hpp"

namespace nhsim {
namespace {

using Body = NontwistingBody;
using VecQ = Body::VecQ;

/// Load of eq. (115)/(118): direction `scale` * (-2472.5, -1075, 0), profile eq. (116).
LoadSpec paper_load(double scale) {
  LoadSpec l;
  l.direction = {-2472.5 * scale, -1075.0 * scale, 0.0};
  l.profile.kind = ControlSpec::Kind::kTable;
  l.profile.times = {0.0, 0.5, 1.0};
  l.profile.values = {0.0, 1.0, 0.0};
  return l;
}

/// Case 1-3 of seed 004 §6 (eq. (112)-(118)): body with eq. (111) inertia and its loads.
struct Case {
  Body body{3.0, 1.0 / 7.0, 2.0, 1.0};
  VecQ q0, p0;
  explicit Case(int n) {
    Eigen::Vector3d w(0.0, 0.0, 0.0);
    if (n == 1) w << 6.0, -18.0, 0.0;
    if (n == 3) w << 1.5, 4.5, 0.0;
    if (n == 2) body.set_loads({paper_load(1.0)});
    if (n == 3) body.set_loads({paper_load(0.5)});
    body.state_from_rotation(Eigen::Matrix3d::Identity(), w, q0, p0);
  }
};

/// Per-run summary: final state and the extreme residuals/drifts over the run.
struct RunSummary {
  bool ok = true;
  VecQ q, p;
  double max_pi3 = 0.0, max_g = 0.0;
  double k1 = 0.0, pi1_1 = 0.0, pi2_1 = 0.0;  // at t = 1 s
  double dk = 0.0, dpi1 = 0.0, dpi2 = 0.0;    // max |x(t) - x(1)| for t > 1 s
  double newton_per_step = 0.0;
};

template <class Method, class S>
RunSummary run(const S& sys, const VecQ& q0, const VecQ& p0, double h, double t_final,
               double tol = 1e-10) {
  NewtonSettings ns;
  ns.tol = tol;
  ns.max_iter = 50;
  Method m(sys, h, ns);
  m.set_canonical(q0, p0);
  const long n = std::lround(t_final / h);
  const long n1 = std::lround(1.0 / h);
  RunSummary r;
  typename S::VecG g;
  for (long k = 1; k <= n; ++k) {
    double res = 0.0;
    if (m.step(res) != StepStatus::kOk) {
      r.ok = false;
      return r;
    }
    m.canonical(r.q, r.p);
    sys.holonomic_constraint(r.q, g);
    r.max_g = std::max(r.max_g, g.cwiseAbs().maxCoeff());
    r.max_pi3 = std::max(r.max_pi3, std::abs(sys.observable(2, r.q, r.p)));
    const double kin = sys.hamiltonian(r.q, r.p), pi1 = sys.observable(0, r.q, r.p),
                 pi2 = sys.observable(1, r.q, r.p);
    if (k == n1) {
      r.k1 = kin;
      r.pi1_1 = pi1;
      r.pi2_1 = pi2;
    } else if (k > n1) {
      r.dk = std::max(r.dk, std::abs(kin - r.k1));
      r.dpi1 = std::max(r.dpi1, std::abs(pi1 - r.pi1_1));
      r.dpi2 = std::max(r.dpi2, std::abs(pi2 - r.pi2_1));
    }
  }
  r.newton_per_step = static_cast<double>(m.newton_iterations()) / static_cast<double>(n);
  return r;
}

/// Second quotient of precision (seed 004 Appendix A, not in the seed text; the usual
/// definition): |q_h(T) - q_{h/2}(T)| / |q_{h/2}(T) - q_{h/4}(T)|, ~ 2^p = 4 for order 2.
template <class Method, class S>
double second_quotient(const S& sys, const VecQ& q0, const VecQ& p0, double h, double t_final) {
  const RunSummary a = run<Method>(sys, q0, p0, h, t_final);
  const RunSummary b = run<Method>(sys, q0, p0, h / 2, t_final);
  const RunSummary c = run<Method>(sys, q0, p0, h / 4, t_final);
  EXPECT_TRUE(a.ok && b.ok && c.ok);
  return (a.q - b.q).norm() / (b.q - c.q).norm();
}

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
            (std::vector<std::string>{"dla", "nh_rattle", "nh_rattle_projected", "rk2", "em"}));
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

// Case 1 (eq. (112)-(113)), h = 0.005 s on [0, 5] s, tolerance 1e-10 (seed 004 §6.1, Table 1-2).
TEST(NontwistingBody, EmCase1PreservesKPi1Pi2AndPi3Vanishes) {
  const Case c(1);
  const RunSummary r = run<EmMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
  ASSERT_TRUE(r.ok);
  const double k0 = c.body.hamiltonian(c.q0, c.p0);
  EXPECT_LT(std::abs(c.body.hamiltonian(r.q, r.p) - k0), 1e-10 * k0);       // measured 1.3e-11 K
  EXPECT_LT(std::abs(c.body.observable(0, r.q, r.p) - 144.0 / 7.0), 1e-8);  // measured 1e-10
  EXPECT_LT(std::abs(c.body.observable(1, r.q, r.p) + 510.0 / 7.0), 1e-8);  // measured 5e-10
  EXPECT_LT(r.max_pi3, 1e-8);         // Pi3 = 0 at the Newton tolerance level (measured 1.3e-9)
  EXPECT_LT(r.max_g, 1e-11);          // |g(q)| (measured 5.7e-13)
  EXPECT_LT(r.newton_per_step, 6.0);  // measured 4.8
  const double q2 = second_quotient<EmMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
  EXPECT_GT(q2, 3.8);  // measured 3.99
  EXPECT_LT(q2, 4.2);
}

// §6.4, Table 7: EM against DLA on case 1.
TEST(NontwistingBody, DlaCase1AgreesWithEmOnTheInvariants) {
  const Case c(1);
  const RunSummary em = run<EmMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
  const RunSummary dla = run<DlaMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
  ASSERT_TRUE(em.ok && dla.ok);
  const double k0 = c.body.hamiltonian(c.q0, c.p0);
  EXPECT_LT(std::abs(c.body.hamiltonian(dla.q, dla.p) - k0), 1e-10 * k0);
  for (int k : {0, 1, 3}) {
    const double a = c.body.observable(k, em.q, em.p), b = c.body.observable(k, dla.q, dla.p);
    EXPECT_LT(std::abs(a - b), 1e-10 * std::abs(a)) << k;
  }
  EXPECT_LT(dla.max_pi3, 1e-12);  // DLA keeps the velocity constraint at the nodes
  EXPECT_LT(dla.max_g, 1e-10);
  // The trajectories differ by the O(h^2) phase error: |d3_em - d3_dla| ~ 0.2 at t = 5 s.
  EXPECT_GT((em.q.segment<3>(6) - dla.q.segment<3>(6)).norm(), 1e-3);
  const double q2 = second_quotient<DlaMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
  EXPECT_GT(q2, 3.8);  // measured 4.01
  EXPECT_LT(q2, 4.2);
}

// Cases 2-3 (eq. (114)-(118)): invariants constant after the load ends; the stationary
// material momenta converge at second order to the exact Pi(t >= 1) = Pi(0) + 1/2 D (the load
// impulse: for the non-twisting body d/dt Pi^a = m^a, a = 1, 2).
TEST(NontwistingBody, EmCases2And3InvariantsAfterTheLoad) {
  for (int n : {2, 3}) {
    const Case c(n);
    const RunSummary r = run<EmMethod<Body>>(c.body, c.q0, c.p0, 0.005, 5.0);
    ASSERT_TRUE(r.ok) << n;
    EXPECT_LT(r.dk, 1e-12 * r.k1) << n;                // measured 7e-15 K
    EXPECT_LT(r.dpi1, 1e-7 * std::abs(r.pi1_1)) << n;  // measured 8e-9
    EXPECT_LT(r.dpi2, 1e-7 * std::abs(r.pi1_1)) << n;  // measured 5e-8
    EXPECT_LT(r.max_g, 1e-11) << n;
    // Pi3 = O(h^2) while the load acts (the nodes satisfy w . d3 = 0 only to O(h^2)).
    EXPECT_LT(r.max_pi3, 5e-4 * std::abs(r.pi1_1)) << n;  // measured 1.8e-4, 1.3e-4
    EXPECT_LT(r.newton_per_step, 6.0) << n;
    const double s = n == 2 ? 1.0 : 0.5;
    const Eigen::Vector2d exact(c.body.observable(0, c.q0, c.p0) - 0.5 * 2472.5 * s,
                                c.body.observable(1, c.q0, c.p0) - 0.5 * 1075.0 * s);
    double err[2];
    for (int j = 0; j < 2; ++j) {
      const RunSummary f = run<EmMethod<Body>>(c.body, c.q0, c.p0, 0.000625 / (j + 1), 1.0);
      ASSERT_TRUE(f.ok);
      err[j] =
          (Eigen::Vector2d(c.body.observable(0, f.q, f.p), c.body.observable(1, f.q, f.p)) - exact)
              .norm();
    }
    EXPECT_GT(err[0] / err[1], 3.7) << n;  // measured 3.93 (case 2)
    EXPECT_LT(err[0] / err[1], 4.3) << n;
  }
}

// Standard rigid body (§3.5, §5.1, Thm 8): EM conserves K and the spatial angular momentum.
TEST(RigidBody, EmConservesEnergyAndSpatialAngularMomentum) {
  const RigidBody body(3.0, 1.0 / 7.0, 2.0, 1.0);
  const Eigen::Matrix3d r = Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, -1, 2).normalized()).matrix();
  VecQ q0, p0;
  body.state_from_rotation(r, Eigen::Vector3d(1.0, -2.0, 3.0), q0, p0);
  const RunSummary run1 = run<EmMethod<RigidBody>>(body, q0, p0, 0.01, 10.0);
  ASSERT_TRUE(run1.ok);
  const double k0 = body.hamiltonian(q0, p0);
  EXPECT_LT(std::abs(body.hamiltonian(run1.q, run1.p) - k0), 1e-11 * k0);
  const Eigen::Vector3d s0 = RigidBody::spatial_momentum(q0, p0);
  EXPECT_LT((RigidBody::spatial_momentum(run1.q, run1.p) - s0).norm(), 1e-9 * s0.norm());
  EXPECT_LT(run1.max_g, 1e-11);
  // The twist rate is not constrained: W3 != 0 and Pi3 is not conserved (Euler's equations).
  EXPECT_GT(std::abs(body.observable(2, q0, p0)), 1.0);
  const double q2 = second_quotient<EmMethod<RigidBody>>(body, q0, p0, 0.01, 2.0);
  EXPECT_GT(q2, 3.8);
  EXPECT_LT(q2, 4.2);
}

// Through the engine: spec with loads, em and dla, observables by name.
TEST(NontwistingBody, RunsThroughTheEnsembleWithLoads) {
  const Case c(3);
  EnsembleSpec spec;
  spec.system = "nontwisting_body";
  spec.initial_conditions.states.push_back({std::vector<double>(c.q0.data(), c.q0.data() + 9),
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

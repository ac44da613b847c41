// The (perturbed) knife edge ([AnahorySimoes2022] Examples 4-5): reduced and canonical forms agree,
// the MLA of Examples 4-5 and the DLA are second order, and the energy experiments of Figs. 5-6.
#include "nhsim/systems/knife_edge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/integrators/mla.hpp"
#include "nhsim/model.hpp"
#include "nhsim/stepper_factory.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using K = KnifeEdge;

TEST(KnifeEdge, ReducedAndCanonicalFormsDescribeTheSameMotion) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (const double eps : {0.0, 0.1, -0.5}) {
    const K sys(eps);
    for (int trial = 0; trial < 20; ++trial) {
      K::VecZ z;
      for (int i = 0; i < 5; ++i) z(i) = nd(rng);
      const K::VecQ q = z.head<3>();
      K::VecQ p;
      sys.from_reduced(q, z.tail<2>(), p);
      EXPECT_LT(sys.constraint_residual(q, p), 1e-15);
      K::VecR rho;
      sys.to_reduced(q, p, rho);
      EXPECT_LT((rho - z.tail<2>()).lpNorm<Eigen::Infinity>(), 1e-14);
      EXPECT_NEAR(sys.hamiltonian(q, p), sys.reduced_hamiltonian(z), 1e-14);
      // Lagrange-d'Alembert (M = I): q' = p, p' = (1/2, 0, 0) + lambda mu,
      // mu = (sin phi, -(cos phi - eps), 0), lambda = -[phi' (cos phi x' + sin phi y') +
      // sin(phi)/2] / |mu|^2 (file comment of knife_edge.hpp).
      const double s = std::sin(q(2)), c = std::cos(q(2));
      const Eigen::Vector3d mu(s, -(c - eps), 0.0);
      const double lam = -(p(2) * (c * p(0) + s * p(1)) + 0.5 * s) / mu.squaredNorm();
      const Eigen::Vector3d pdot = Eigen::Vector3d(0.5, 0.0, 0.0) + lam * mu;
      // d/dt (mu M^-1 p) = 0 along the field: the multiplier is right.
      const Eigen::Vector3d dmu(c * p(2), s * p(2), 0.0);
      EXPECT_NEAR(dmu.dot(p) + mu.dot(pdot), 0.0, 1e-13);
      K::VecZ g, f;
      sys.reduced_rhs(z, g, f);
      EXPECT_LT((f.head<3>() - p).lpNorm<Eigen::Infinity>(), 1e-14);
      // rho1 = u . (p_x, p_y), u = ((c - eps), s) / r: rho1' = u' . p + u . p'.
      const double r = std::hypot(c - eps, s);
      const double h = 1e-6;
      const double sp = std::sin(q(2) + h), cp = std::cos(q(2) + h), sm = std::sin(q(2) - h),
                   cm = std::cos(q(2) - h);
      const double du1 =
          ((cp - eps) / std::hypot(cp - eps, sp) - (cm - eps) / std::hypot(cm - eps, sm)) / (2 * h);
      const double du2 = (sp / std::hypot(cp - eps, sp) - sm / std::hypot(cm - eps, sm)) / (2 * h);
      const double rho1dot =
          p(2) * (du1 * p(0) + du2 * p(1)) + ((c - eps) * pdot(0) + s * pdot(1)) / r;
      EXPECT_NEAR(f(3), rho1dot, 1e-8);
      EXPECT_NEAR(f(4), pdot(2), 1e-14);
    }
  }
  EXPECT_THROW(K(0.95), std::invalid_argument);
  EXPECT_THROW(K(std::nan("")), std::invalid_argument);
}

// The two-step start of Figs. 5-6: q0 = 0, x1 = phi1 = 0.4, y1 from the discrete constraint,
// h = 0.5; canonical initial state p0 = P_{q0} F^{f-} L_d(q0, q1) (discrete Legendre transform).
constexpr double kH = 0.5;
Eigen::Vector3d fig5_q1(double eps) {
  return {0.4, 0.4 * std::sin(0.2) / (std::cos(0.2) - eps), 0.4};
}
test::Ic fig5_ic(double eps) {
  const K sys(eps);
  test::Ic ic;
  ic.q = Eigen::Vector3d::Zero();
  ic.p = MlaMethod<K>::initial_momentum(sys, Eigen::Vector3d::Zero(), fig5_q1(eps), kH);
  return ic;
}

// The canonical initial states written into examples/knife_edge_fig5.json and _fig6.json.
TEST(KnifeEdge, ExampleSpecStatesAreTheDiscreteLegendreTransformOfTheTwoStepStart) {
  EXPECT_LT(
      (fig5_ic(0.0).p - Eigen::Vector3d(0.71236729355620731, 0.0, 0.8)).lpNorm<Eigen::Infinity>(),
      1e-16);
  EXPECT_LT(
      (fig5_ic(0.1).p - Eigen::Vector3d(0.72108521678511861, 0.0, 0.8)).lpNorm<Eigen::Infinity>(),
      1e-16);
}

TEST(KnifeEdge, MlaAndDlaAreSecondOrderAndMlaStartsOnQ1) {
  for (const double eps : {0.0, 0.1}) {
    const K sys(eps);
    // First MLA step from the canonical state lands on the paper's q1.
    const test::Ic ic0 = fig5_ic(eps);
    auto st = test::make_stepper(sys, "mla", kH);
    st->set_state(ic0.q, ic0.p);
    ASSERT_EQ(st->advance(1).status, StepStatus::kOk);
    Eigen::VectorXd q(3), p(3);
    st->get_state(q, p);
    EXPECT_LT((q - fig5_q1(eps)).lpNorm<Eigen::Infinity>(), 1e-14);
    // Order against a fine RK4 reference (RK4 error ~1e-14 at h = 1e-3).
    test::Ic ic;
    ic.q = Eigen::Vector3d(0.3, -0.2, 0.5);
    K::VecQ p0;
    sys.from_reduced(K::VecQ(ic.q), K::VecR(0.6, 0.8), p0);
    ic.p = p0;
    const Eigen::VectorXd ref = test::state_at(sys, "rk4", 1e-3, 10.0, ic);
    for (const std::string id : {"mla", "dla"}) {
      EXPECT_NEAR(test::observed_order(sys, id, 0.1, ic, ref), 2.0, 0.05) << id << " " << eps;
    }
  }
}

struct EnergyRun {
  std::vector<double> de;  // H(t_k) - H(0), k = 1..N
  double max_abs(std::size_t from, std::size_t to) const {
    double m = 0.0;
    for (std::size_t k = from; k < to; ++k) m = std::max(m, std::abs(de[k]));
    return m;
  }
};

EnergyRun energy_run(double eps, const std::string& id) {
  const K sys(eps);
  const test::Ic ic = fig5_ic(eps);
  auto st = test::make_stepper(sys, id, kH);
  st->set_state(ic.q, ic.p);
  const double h0 = st->energy();
  EnergyRun r;
  for (int k = 1; k <= 600; ++k) {
    EXPECT_EQ(st->advance(1).status, StepStatus::kOk) << id;
    EXPECT_LT(st->constraint_residual(), 1e-13) << id;
    r.de.push_back(st->energy() - h0);
  }
  return r;
}

// [AnahorySimoes2022] Fig. 5 (Example 4, eps = 0, h = 0.5, N = 600): "nearly preservation of the
// energy" by MLA. Measured: both energy errors oscillate without drift (the same maximum in each
// quarter of the run), MLA's within 3.32e-4, DLA's within 3.40e-2 (~100x larger).
TEST(KnifeEdge, Fig5MlaEnergyErrorIsBoundedAndHundredTimesSmallerThanDla) {
  const EnergyRun mla = energy_run(0.0, "mla");
  const EnergyRun dla = energy_run(0.0, "dla");
  const double mmax = mla.max_abs(0, 600), dmax = dla.max_abs(0, 600);
  EXPECT_LT(mmax, 3.4e-4);
  EXPECT_GT(dmax, 3.3e-2);
  EXPECT_GT(dmax, 90.0 * mmax);
  // No drift: the last quarter's maximum equals the first quarter's (to 1 %).
  EXPECT_NEAR(mla.max_abs(450, 600), mla.max_abs(0, 150), 0.01 * mmax);
  EXPECT_NEAR(dla.max_abs(450, 600), dla.max_abs(0, 150), 0.01 * dmax);
}

// [AnahorySimoes2022] Fig. 6 (Example 5, eps = 0.1): MLA "no longer preserves energy. Anyway, it
// still behaves clearly better than standard DLA". Measured: both drift (the maximum grows from
// quarter to quarter), MLA to 2.0e-2, DLA to 0.64 (~32x larger).
TEST(KnifeEdge, Fig6PerturbedMlaDriftsButStaysFarBelowDla) {
  const EnergyRun mla = energy_run(0.1, "mla");
  const EnergyRun dla = energy_run(0.1, "dla");
  const double mmax = mla.max_abs(0, 600), dmax = dla.max_abs(0, 600);
  EXPECT_NEAR(mmax, 2.0e-2, 0.1e-2);
  EXPECT_NEAR(dmax, 0.64, 0.01);
  EXPECT_GT(dmax, 25.0 * mmax);
  // Drift, unlike Fig. 5: the last quarter's maximum is > 10x the first quarter's for both.
  EXPECT_GT(mla.max_abs(450, 600), 10.0 * mla.max_abs(0, 150));
  EXPECT_GT(dla.max_abs(450, 600), 10.0 * dla.max_abs(0, 150));
  // And the perturbation costs MLA its near-conservation (> 50x the eps = 0 error).
  EXPECT_GT(mmax, 50.0 * energy_run(0.0, "mla").max_abs(0, 600));
}

TEST(KnifeEdge, RegistryAppliesTheIntegratorsItHasDataFor) {
  const SystemEntry* e = find_system("knife_edge");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->info.parameters.size(), 1u);
  EXPECT_EQ(e->info.parameters[0].name, "epsilon");
  EXPECT_EQ(e->info.parameters[0].default_value, 0.0);
  try {
    complete_parameters(*e, {{"epsilon", 1.0}});
    ADD_FAILURE() << "epsilon = 1 accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "parameters.epsilon");
  }
  // No explicit solution: `exact` is refused with the reason; everything else applies.
  const auto why = not_applicable("knife_edge", "exact");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("explicit solution"), std::string::npos) << *why;
  // Also refused: rdp_exp / rdp_cay (need an M x SE(2) structure), [Kobilarov2010]; em
  // ([Gebhardt2020]) needs a director rigid body, ggl ([Kinon2023]) holonomic constraints. rk2
  // applies (d mu / dt by the complex step).
  for (const char* id : {"rdp_exp", "rdp_cay", "em", "ggl"}) {
    EXPECT_TRUE(not_applicable("knife_edge", id).has_value()) << id;
  }
  EXPECT_FALSE(not_applicable("knife_edge", "rk2").has_value());
  EXPECT_EQ(e->info.integrators.size(), list_integrators().size() - 5);
  const auto model = e->make({{"epsilon", 0.1}});
  const test::Ic ic = fig5_ic(0.1);
  for (const auto& id : e->info.integrators) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.1;
    auto st = model->make_stepper(c);
    st->set_state(ic.q, ic.p);
    const double h0 = st->energy();
    ASSERT_EQ(st->advance(50).status, StepStatus::kOk) << id;
    if (id == "rk2") {  // the non-geometric baseline keeps neither: its residual drifts
      EXPECT_GT(st->constraint_residual(), 1e-8);
      EXPECT_LT(st->constraint_residual(), 0.05);
      continue;
    }
    EXPECT_LT(std::abs(st->energy() - h0), 1e-2 * std::abs(h0)) << id;
    if (id != "i_dla" && id != "gonzalez_f" && id != "avf_f") {
      EXPECT_LT(st->constraint_residual(), 1e-13) << id;
    }
  }
}

}  // namespace
}  // namespace nhsim

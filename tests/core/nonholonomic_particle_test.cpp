// The nonholonomic particle ([AnahorySimoes2022] Examples 1-3): reduced and canonical forms agree,
// the closed-form flow is eq. (19)-(20), `exact` reproduces it at any h (Thm 5.5), the exact
// discrete constraint eq. (25), the MLA of Example 3 (eq. (41)-(43)) and the DLA it is compared
// with, and the experiment of Figs. 2-3.
#include "nhsim/systems/nonholonomic_particle.hpp"

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

using P = NonholonomicParticle;

// Eq. (19) (y'0 != 0) and eq. (20) (y'0 = 0) exactly as printed, from (q0, q'0) with
// z'0 = y0 x'0.
Eigen::Vector3d eq19(const Eigen::Vector3d& q0, double xd0, double yd0, double t) {
  const double x0 = q0(0), y0 = q0(1), z0 = q0(2);
  if (yd0 == 0.0) return {xd0 * t + x0, y0, y0 * xd0 * t + z0};
  const double c = xd0 / yd0 * std::sqrt(y0 * y0 + 1.0);
  const double y = yd0 * t + y0;
  return {c * (std::asinh(y) - std::asinh(y0)) + x0, y,
          c * (std::sqrt(y * y + 1.0) - std::sqrt(y0 * y0 + 1.0)) + z0};
}

// The two-step start of Example 3: q0 = 0, q1 = (0.4, 0.4, z1), z1 from eq. (43), h = 0.5.
const double kH = 0.5;
Eigen::Vector3d example3_q0() { return Eigen::Vector3d::Zero(); }
Eigen::Vector3d example3_q1() { return {0.4, 0.4, 0.5 * (0.4 + 0.0) * 0.4}; }
// Its canonical initial state (q0, p0): p0 = P_{q0} F^{f-} L_d(q0, q1) (discrete Legendre
// transform, discrete_momentum_matching.hpp) = (0.8 (1 + 0.16 / 4.16), 0.8, 0).
test::Ic example3_ic() {
  const P sys;
  test::Ic ic;
  ic.q = example3_q0();
  ic.p = MlaMethod<P>::initial_momentum(sys, example3_q0(), example3_q1(), kH);
  return ic;
}

TEST(NonholonomicParticle, ReducedAndCanonicalFormsDescribeTheSameMotion) {
  const P sys;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    P::VecZ z;
    for (int i = 0; i < 5; ++i) z(i) = nd(rng);
    const P::VecQ q = z.head<3>();
    P::VecQ p;
    sys.from_reduced(q, z.tail<2>(), p);
    EXPECT_LT(sys.constraint_residual(q, p), 1e-15);
    P::VecR rho;
    sys.to_reduced(q, p, rho);
    EXPECT_LT((rho - z.tail<2>()).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_NEAR(sys.hamiltonian(q, p), sys.reduced_hamiltonian(z), 1e-14);
    // Eq. (18) in canonical coordinates (M = I): q' = p, p' = lambda (-y, 0, 1),
    // lambda = x' y' / (1 + y^2). rho = (p_x + y p_z, p_y): rho' = (p_x' + y' p_z + y p_z', p_y').
    const double y = q(1), lam = p(0) * p(1) / (1.0 + y * y);
    const Eigen::Vector3d pdot(-y * lam, 0.0, lam);
    P::VecZ g, f;
    sys.reduced_rhs(z, g, f);
    EXPECT_LT((f.head<3>() - p).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_NEAR(f(3), pdot(0) + p(1) * p(2) + y * pdot(2), 1e-13);
    EXPECT_NEAR(f(4), pdot(1), 1e-14);
    // Pi is skew.
    P::VecZ u, v, piu, piv;
    for (int i = 0; i < 5; ++i) u(i) = nd(rng), v(i) = nd(rng);
    sys.apply_pi(z, u, piu);
    sys.apply_pi(z, v, piv);
    EXPECT_NEAR(v.dot(piu), -u.dot(piv), 1e-13);
  }
}

// exact_flow() is eq. (19) resp. (20), is a flow (phi_{s+t} = phi_t o phi_s) and solves eq. (18):
// its time derivative is the reduced field.
TEST(NonholonomicParticle, ExactFlowIsEq19And20) {
  const P sys;
  std::mt19937_64 rng(13);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    P::VecZ z;
    for (int i = 0; i < 5; ++i) z(i) = nd(rng);
    if (trial % 10 == 0) z(4) = 0.0;  // the y'0 = 0 branch, eq. (20)
    const double t = 3.0 * nd(rng);
    const double y0 = z(1), xd0 = z(3) / (1.0 + y0 * y0), yd0 = z(4);
    P::VecZ zt;
    sys.exact_flow(z, t, zt);
    const Eigen::Vector3d printed = eq19(z.head<3>(), xd0, yd0, t);
    EXPECT_LT((zt.head<3>() - printed).lpNorm<Eigen::Infinity>(),
              1e-13 * std::max(1.0, printed.lpNorm<Eigen::Infinity>()))
        << "trial " << trial;
    // Energy is conserved; rho2 = y' constant.
    EXPECT_NEAR(sys.reduced_hamiltonian(zt), sys.reduced_hamiltonian(z), 1e-13);
    EXPECT_EQ(zt(4), z(4));
    // Flow property.
    const double s = nd(rng);
    P::VecZ zs, zst;
    sys.exact_flow(z, s, zs);
    sys.exact_flow(zs, t, zst);
    P::VecZ zdirect;
    sys.exact_flow(z, s + t, zdirect);
    EXPECT_LT((zst - zdirect).lpNorm<Eigen::Infinity>(), 1e-12) << "trial " << trial;
    // d/dt at t: central difference of the flow = reduced field at zt.
    const double d = 1e-5;
    P::VecZ zp, zm, g, f;
    sys.exact_flow(z, t + d, zp);
    sys.exact_flow(z, t - d, zm);
    sys.reduced_rhs(zt, g, f);
    EXPECT_LT(((zp - zm) / (2 * d) - f).lpNorm<Eigen::Infinity>(), 1e-7) << "trial " << trial;
  }
  // Small y'0: the stable evaluation joins eq. (20) continuously (the printed eq. (19) loses
  // all digits to cancellation there).
  P::VecZ z0, z1, a, b;
  z0 << 0.3, -0.7, 0.2, 1.1, 0.0;
  z1 = z0;
  z1(4) = 1e-12;
  sys.exact_flow(z0, 2.0, a);
  sys.exact_flow(z1, 2.0, b);
  EXPECT_LT((a - b).lpNorm<Eigen::Infinity>(), 1e-11);
}

// Thm 5.5: the exact discrete flow matches the continuous one at every step, for any h. The
// `exact` integrator from Example 3's canonical state equals eq. (19) at t = k h to round-off.
TEST(NonholonomicParticle, ExactIntegratorReproducesEq19AtAnyStep) {
  const P sys;
  const test::Ic ic = example3_ic();
  for (const double h : {0.5, 2.0, 7.3}) {
    auto st = test::make_stepper(sys, "exact", h);
    st->set_state(ic.q, ic.p);
    Eigen::VectorXd q(3), p(3);
    double worst = 0.0;
    for (int k = 1; k <= 1200; ++k) {
      ASSERT_EQ(st->advance(1).status, StepStatus::kOk);
      st->get_state(q, p);
      const Eigen::Vector3d ref = eq19(ic.q, ic.p(0), ic.p(1), k * h);
      worst = std::max(worst, (q - ref).lpNorm<Eigen::Infinity>() /
                                  std::max(1.0, ref.lpNorm<Eigen::Infinity>()));
    }
    EXPECT_LT(worst, 1e-13) << "h = " << h;
  }
}

// Eq. (25): pairs (q(0), q(h)) of trajectories lie on M^{e,nh}_h (mu_d = 0 to round-off, for
// any h), the MLA discrete constraint eq. (43) differs from it at O(h^2) (Fig. 4), and the
// two-step start of Example 3 is not on the exact submanifold.
TEST(NonholonomicParticle, ExactDiscreteConstraintEq25) {
  const P sys;
  std::mt19937_64 rng(17);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    P::VecZ z;
    for (int i = 0; i < 5; ++i) z(i) = nd(rng);
    if (trial % 10 == 0) z(4) = 0.0;  // y1 = y0: the limit of eq. (25)
    for (const double h : {0.01, 0.5, 3.0}) {
      P::VecZ zh;
      sys.exact_flow(z, h, zh);
      const double mud = sys.exact_discrete_constraint(z.head<3>(), zh.head<3>(), h);
      EXPECT_LT(std::abs(mud), 1e-13 * std::max(1.0, zh.head<3>().lpNorm<Eigen::Infinity>()))
          << "trial " << trial << " h " << h;
      // Eq. (25) as printed (y1 != y0), for the larger steps where it has digits to spare.
      if (z(4) != 0.0 && h >= 0.5) {
        const double x0 = z(0), y0 = z(1), z0 = z(2), x1 = zh(0), y1 = zh(1), z1 = zh(2);
        const double printed =
            (z1 - z0) / h - (x1 - x0) * (std::sqrt(y1 * y1 + 1) - std::sqrt(y0 * y0 + 1)) /
                                (h * (std::asinh(y1) - std::asinh(y0)));
        EXPECT_LT(std::abs(printed), 1e-11);
      }
    }
  }
  // Eq. (43) vs eq. (25) along a trajectory: the defect of the exact pair in eq. (43) is O(h^3)
  // in position (O(h^2) as a velocity), the ratio for h and h/2 is ~4.
  P::VecZ z;
  z << 0.0, 0.2, 0.0, 1.0, 0.8;
  std::vector<double> defect;
  for (const double h : {0.02, 0.01, 0.005}) {
    P::VecZ zh;
    sys.exact_flow(z, h, zh);
    P::VecC w;
    sys.mla_discrete_constraint(z.head<3>(), zh.head<3>(), h, w);
    defect.push_back(std::abs(w(0)));
  }
  EXPECT_NEAR(defect[0] / defect[1], 4.0, 0.1);
  EXPECT_NEAR(defect[1] / defect[2], 4.0, 0.1);
  EXPECT_GT(std::abs(sys.exact_discrete_constraint(example3_q0(), example3_q1(), kH)), 1e-3);
}

// The generic MLA (Newton on eq. (42) with the discretisation of Example 3) is the closed-form
// recursion printed in Example 3, x2 = x1 + (x1 - x0) N / D, y2 = 2 y1 - y0, z2 from eq. (43),
// and its first step from the canonical initial state lands on Example 3's q1.
TEST(NonholonomicParticle, MlaIsTheRecursionOfExample3) {
  const P sys;
  const test::Ic ic = example3_ic();
  EXPECT_NEAR(ic.p(0), 0.8 * (1.0 + 0.16 / 4.16), 1e-15);
  EXPECT_NEAR(ic.p(1), 0.8, 1e-15);
  EXPECT_NEAR(ic.p(2), 0.0, 1e-15);
  auto st = test::make_stepper(sys, "mla", kH);
  st->set_state(ic.q, ic.p);
  Eigen::Vector3d qm = example3_q0(), q = example3_q1();
  Eigen::VectorXd qs(3), ps(3);
  double worst = 0.0;
  for (int k = 1; k <= 1200; ++k) {
    ASSERT_EQ(st->advance(1).status, StepStatus::kOk);
    st->get_state(qs, ps);
    if (k == 1) {
      EXPECT_LT((qs - q).lpNorm<Eigen::Infinity>(), 1e-14);
      continue;
    }
    const double x0 = qm(0), y0 = qm(1), x1 = q(0), y1 = q(1);
    const double num =
        1 + 0.5 * y1 * (y1 + y0) + (y1 - y0) * (y1 - y0) / (4 + (y1 + y0) * (y1 + y0));
    const double den =
        1 + 0.5 * y1 * (3 * y1 - y0) + (y1 - y0) * (y1 - y0) / (4 + (3 * y1 - y0) * (3 * y1 - y0));
    Eigen::Vector3d q2;
    q2(0) = x1 + (x1 - x0) * num / den;
    q2(1) = 2 * y1 - y0;
    q2(2) = q(2) + 0.5 * (q2(1) + y1) * (q2(0) - x1);
    qm = q;
    q = q2;
    worst = std::max(
        worst, (qs - q).lpNorm<Eigen::Infinity>() / std::max(1.0, q.lpNorm<Eigen::Infinity>()));
    // The reported momentum is on D and its D*-part is F^+ l_d of Example 3 (e^1 component).
    EXPECT_LT(sys.constraint_residual(qs, ps), 1e-13);
  }
  EXPECT_LT(worst, 1e-11);  // round-off of two different evaluations over 1200 steps
  // F^+ l_d(q_{N-1}, q_N) . e1 = (x1 - x0) / h (1 + y1 (y1 + y0) / 2 + (y1 - y0)^2 / (4 + (y1 +
  // y0)^2)) is the reported rho1.
  P::VecR rho;
  sys.to_reduced(P::VecQ(qs), P::VecQ(ps), rho);
  const double x0 = qm(0), y0 = qm(1), x1 = q(0), y1 = q(1);
  const double fplus =
      (x1 - x0) / kH *
      (1 + 0.5 * y1 * (y1 + y0) + (y1 - y0) * (y1 - y0) / (4 + (y1 + y0) * (y1 + y0)));
  EXPECT_NEAR(rho(0), fplus, 1e-10 * std::abs(fplus));
  EXPECT_NEAR(rho(1), (y1 - y0) / kH, 1e-12);
}

// MLA and DLA are second order (global error at t = 10 against eq. (19), step halving).
TEST(NonholonomicParticle, MlaAndDlaAreSecondOrder) {
  const P sys;
  test::Ic ic;
  ic.q = Eigen::Vector3d(0.1, -0.3, 0.2);
  ic.p = Eigen::Vector3d(0.7, 0.5, -0.3 * 0.7);
  const Eigen::VectorXd ref = test::state_at(sys, "exact", 0.1, 10.0, ic);
  for (const std::string id : {"mla", "dla"}) {
    EXPECT_NEAR(test::observed_order(sys, id, 0.1, ic, ref), 2.0, 0.05) << id;
  }
}

// [AnahorySimoes2022] Figs. 2-3 (Example 3): q0 = 0, q1 = (0.4, 0.4, z1), h = 0.5, N = 1200, from
// the canonical state example3_ic(); error = max-norm of q_k - q(kh), q(t) the exact flow eq. (19)
// from the same state. Paper: MLA behaves well in energy and error, "slightly better than DLA",
// and H|D* "becomes constant along the discrete flow, after the first steps". Measured here:
// MLA energy error settles at 4.426e-5 (constant to 1e-9 after step 100), DLA's at 7.124e-3;
// MLA's error stays at 1.3e-2 .. 3.2e-2 while DLA's grows linearly to 5.1 (t = 600).
TEST(NonholonomicParticle, Fig2And3MlaBeatsDlaInEnergyAndError) {
  const P sys;
  const test::Ic ic = example3_ic();
  auto ex = test::make_stepper(sys, "exact", kH);
  auto mla = test::make_stepper(sys, "mla", kH);
  auto dla = test::make_stepper(sys, "dla", kH);
  for (auto* s : {&ex, &mla, &dla}) (*s)->set_state(ic.q, ic.p);
  const double h0 = ex->energy();
  Eigen::VectorXd qe(3), pe(3), q(3), p(3);
  std::vector<double> emla, edla, errmla, errdla;
  for (int k = 1; k <= 1200; ++k) {
    for (auto* s : {&ex, &mla, &dla}) ASSERT_EQ((*s)->advance(1).status, StepStatus::kOk);
    ex->get_state(qe, pe);
    mla->get_state(q, p);
    errmla.push_back((q - qe).lpNorm<Eigen::Infinity>());
    EXPECT_LT(mla->constraint_residual(), 1e-13);
    dla->get_state(q, p);
    errdla.push_back((q - qe).lpNorm<Eigen::Infinity>());
    EXPECT_LT(dla->constraint_residual(), 1e-13);
    emla.push_back(mla->energy() - h0);
    edla.push_back(dla->energy() - h0);
    EXPECT_LT(std::abs(ex->energy() - h0), 1e-14);
  }
  // Energy: MLA's error is small and constant after the first steps; DLA's is ~160x larger.
  const double emla_end = emla.back();
  EXPECT_NEAR(emla_end, 4.426e-5, 0.005e-5);
  for (std::size_t k = 99; k < emla.size(); ++k) EXPECT_NEAR(emla[k], emla_end, 1e-9) << k;
  double max_emla = 0.0, max_edla = 0.0;
  for (std::size_t k = 0; k < emla.size(); ++k) {
    max_emla = std::max(max_emla, std::abs(emla[k]));
    max_edla = std::max(max_edla, std::abs(edla[k]));
  }
  EXPECT_LT(max_emla, 4.5e-5);
  EXPECT_GT(max_edla, 7.0e-3);
  EXPECT_GT(max_edla, 100.0 * max_emla);
  // Error against the exact flow: MLA's stays below 0.035, DLA's grows ~linearly to > 5.
  EXPECT_LT(*std::max_element(errmla.begin(), errmla.end()), 0.035);
  EXPECT_GT(errdla.back(), 5.0);
  EXPECT_GT(errdla.back(), 100.0 * errmla.back());
  EXPECT_NEAR(errdla.back() / errdla[99], 12.0, 1.0);  // t = 600 vs t = 50: linear growth
}

// Every applicable integrator runs on the particle; the registry lists the new ones.
TEST(NonholonomicParticle, RegistryAppliesTheIntegratorsItHasDataFor) {
  const SystemEntry* e = find_system("nonholonomic_particle");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->info.parameters.empty());
  for (const std::string id :
       {"exact", "mla", "dla", "gonzalez", "avf", "itoh_abe", "midpoint", "rk4", "si_dla", "i_dla",
        "gonzalez_f", "avf_f", "gonzalez_r", "gonzalez_r_fd"}) {
    EXPECT_FALSE(not_applicable("nonholonomic_particle", id).has_value()) << id;
  }
  // Refused: rdp_exp / rdp_cay (need an M x SE(2) structure), [Kobilarov2010]; em ([Gebhardt2020])
  // needs a director rigid body, ggl ([Kinon2023]) holonomic constraints. rk2 applies (d mu / dt by
  // the complex step).
  for (const char* id : {"rdp_exp", "rdp_cay", "em", "ggl"}) {
    EXPECT_TRUE(not_applicable("nonholonomic_particle", id).has_value()) << id;
  }
  EXPECT_FALSE(not_applicable("nonholonomic_particle", "rk2").has_value());
  EXPECT_EQ(e->info.integrators.size(), list_integrators().size() - 4);
  const auto model = e->make({});
  const test::Ic ic = example3_ic();
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
    EXPECT_LT(std::abs(st->energy() - h0), 1e-2 * h0) << id;
    if (id != "i_dla" && id != "gonzalez_f" && id != "avf_f") {
      EXPECT_LT(st->constraint_residual(), 1e-13) << id;
    }
  }
  // mla is refused where a system has no MLA discretisation, with the reason.
  const auto why = not_applicable("rolling_disk", "mla");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("discretisation"), std::string::npos) << *why;
  EXPECT_TRUE(not_applicable("suslov", "dla").has_value());
}

}  // namespace
}  // namespace nhsim

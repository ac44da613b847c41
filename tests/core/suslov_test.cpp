// The Euler-Poincaré-Suslov problem on so(3) ([Celledoni2019] §4.3): the canonical embedding, the
// reduced form of §4.3 against the Euler-Poincaré-Suslov equations written out independently,
// energy preservation, and the paper's statement that the discrete gradient method is here the
// implicit midpoint rule (H is quadratic).
#include "nhsim/systems/suslov.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "nhsim/catalogue.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/stepper_factory.hpp"
#include "reduced_form_checks.hpp"

namespace nhsim {
namespace {

using S = Suslov;

// The documented defaults.
constexpr double kI11 = 2.0, kI22 = 3.0, kI33 = 4.0, kI13 = 0.5, kI23 = 0.3;
S body() { return S(kI11, kI22, kI33, kI13, kI23); }

// The inertia tensor of §4.3 with I12 = 0, written out independently of the system.
Eigen::Matrix3d printed_inertia() {
  Eigen::Matrix3d g;
  g << kI11, 0, kI13, 0, kI22, kI23, kI13, kI23, kI33;
  return g;
}

S::VecZ random_zeta(std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  S::VecZ z;
  for (int i = 0; i < 5; ++i) z(i) = nd(rng);
  return z;
}

TEST(Suslov, CanonicalEmbeddingAndParameterChecks) {
  const S sys = body();
  const Eigen::Matrix3d g = printed_inertia();
  EXPECT_GT(g.llt().info() == Eigen::Success ? 1 : 0, 0);  // the defaults are positive definite
  EXPECT_NEAR(g.determinant(), 23.07, 1e-12);
  std::mt19937_64 rng(1);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecQ q(nd(rng), nd(rng), nd(rng));
    const S::VecQ p(nd(rng), nd(rng), nd(rng));
    EXPECT_LT((sys.mass_matrix_dyn(q) - g).lpNorm<Eigen::Infinity>(), 1e-16);
    S::VecQ w;
    sys.inv_mass_times(q, p, w);
    const Eigen::Vector3d wref = g.inverse() * p;
    EXPECT_LT((w - wref).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_NEAR(sys.hamiltonian(q, p), 0.5 * wref.dot(g * wref), 1e-13);
    S::MatCQ mu;
    sys.constraint(q, mu);
    EXPECT_EQ(mu(0, 0), 0.0);
    EXPECT_EQ(mu(0, 1), 0.0);
    EXPECT_EQ(mu(0, 2), 1.0);
    EXPECT_NEAR(sys.constraint_value(q, p), wref(2), 1e-14);  // omega3
    EXPECT_NEAR(sys.constraint_residual(q, p), std::abs(wref(2)), 1e-14);
    EXPECT_EQ(sys.potential(q), 0.0);
  }
  EXPECT_NEAR(sys.c112(), kI13 / kI11, 1e-16);
  EXPECT_NEAR(sys.c212(), kI23 / kI22, 1e-16);
  EXPECT_FALSE(S::kConstantMass);  // on purpose: refuses the canonical integrators
  EXPECT_TRUE(S::kHasReducedForm);
  EXPECT_THROW(S(0.0, 3, 4, 0.5, 0.3), std::invalid_argument);
  EXPECT_THROW(S(2, -3, 4, 0.5, 0.3), std::invalid_argument);
  EXPECT_THROW(S(2, 3, 4, std::nan(""), 0.3), std::invalid_argument);
  // Positive diagonal but indefinite: det = 2 * 3 * 1 - 2 * 0.09 - 3 * 4 < 0.
  EXPECT_THROW(S(2, 3, 1, 2.0, 0.3), std::invalid_argument);
  EXPECT_NO_THROW(S(2, 3, 4, -0.5, -0.3));
}

TEST(Suslov, ReducedGradientMatchesFiniteDifferencesAndPiIsSkew) {
  const S sys = body();
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(rng);
    EXPECT_NEAR(sys.reduced_hamiltonian(z), 0.5 * (z(3) * z(3) / kI11 + z(4) * z(4) / kI22), 1e-15);
    const S::VecZ u = random_zeta(rng), v = random_zeta(rng);
    test::expect_reduced_form_consistent(sys, z, u, v, 1e-9, 1e-13);
    S::VecZ piu;
    sys.apply_pi(z, u, piu);
    // The printed matrix of §4.3 on the rho block; zero q rows and columns.
    const double c = kI13 / kI11 * z(3) + kI23 / kI22 * z(4);
    Eigen::Matrix<double, 5, 5> pi = Eigen::Matrix<double, 5, 5>::Zero();
    pi(3, 4) = -c;
    pi(4, 3) = c;
    EXPECT_LT((piu - pi * u).lpNorm<Eigen::Infinity>(), 1e-14);
  }
}

// The reduced field eq. (9) with the Pi and H of §4.3 equals the Euler-Poincaré-Suslov
// equations written here independently: M' = M x omega + lambda e3 (bracket = cross product),
// omega = I^-1 M, with lambda chosen so that (I^-1 M')_3 = 0 keeps omega3 = 0.
TEST(Suslov, ReducedFieldIsTheEulerPoincareSuslovEquations) {
  const S sys = body();
  const Eigen::Matrix3d g = printed_inertia();
  const Eigen::Matrix3d ginv = g.inverse();
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(rng);
    const S::VecQ q = z.head<3>();
    const S::VecR rho = z.tail<2>();
    S::VecQ p;
    sys.from_reduced(q, rho, p);
    // p is the angular momentum of omega = (rho1 / I11, rho2 / I22, 0) on D.
    const Eigen::Vector3d omega(rho(0) / kI11, rho(1) / kI22, 0.0);
    EXPECT_LT((p - g * omega).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_LT(sys.constraint_residual(q, p), 1e-14);
    S::VecR back;
    sys.to_reduced(q, p, back);
    EXPECT_LT((back - rho).lpNorm<Eigen::Infinity>(), 1e-15);
    EXPECT_NEAR(sys.hamiltonian(q, p), sys.reduced_hamiltonian(z), 1e-14);

    const Eigen::Vector3d m = g * omega;
    const Eigen::Vector3d mxw = m.cross(omega);
    const double lambda = -(ginv * mxw)(2) / ginv(2, 2);
    const Eigen::Vector3d mdot = mxw + lambda * Eigen::Vector3d::UnitZ();
    EXPECT_NEAR((ginv * mdot)(2), 0.0, 1e-13);  // omega3 stays 0

    S::VecZ gw, f;
    sys.reduced_rhs(z, gw, f);
    EXPECT_LT(f.head<3>().lpNorm<Eigen::Infinity>(), 1e-300);  // the placeholder q is constant
    EXPECT_NEAR(f(3), mdot(0), 1e-13);
    EXPECT_NEAR(f(4), mdot(1), 1e-13);
    // The third component follows from p3 = C^1_12 rho1 + C^2_12 rho2 on D.
    EXPECT_NEAR(kI13 / kI11 * f(3) + kI23 / kI22 * f(4), mdot(2), 1e-13);
  }
}

struct SuslovRun {
  S::VecZ zeta_end;
  double max_rel_energy_error = 0.0;
  double max_constraint = 0.0;
  double max_q_change = 0.0;
  std::int64_t steps = 0;
};

SuslovRun run_method(const std::string& id, double h, std::int64_t n, double newton_tol = 0.0) {
  const S sys = body();
  const S::VecQ q0(0.3, -1.2, 2.0);
  S::VecQ p0;
  sys.from_reduced(q0, S::VecR(1.1, -0.8), p0);
  IntegratorChoice c;
  c.integrator = id;
  c.h = h;
  c.newton_tol = newton_tol;
  auto st = make_stepper_for(sys, c);
  EXPECT_NE(st, nullptr) << id;
  SuslovRun r;
  if (!st) return r;
  st->set_state(q0, p0);
  const double h0 = sys.hamiltonian(q0, p0);
  Eigen::VectorXd q(3), p(3);
  for (std::int64_t k = 0; k < n; ++k) {
    const AdvanceResult a = st->advance(1);
    EXPECT_EQ(a.status, StepStatus::kOk) << id << " step " << k;
    if (a.status != StepStatus::kOk) break;
    ++r.steps;
    st->get_state(q, p);
    const S::VecQ qq(q), pp(p);
    r.max_rel_energy_error =
        std::max(r.max_rel_energy_error, std::abs(sys.hamiltonian(qq, pp) - h0) / h0);
    r.max_constraint = std::max(r.max_constraint, sys.constraint_residual(qq, pp));
    r.max_q_change = std::max(r.max_q_change, (qq - q0).lpNorm<Eigen::Infinity>());
    r.zeta_end.head<3>() = qq;
    S::VecR rho;
    sys.to_reduced(qq, pp, rho);
    r.zeta_end.tail<2>() = rho;
  }
  return r;
}

// "Suslov: energy preserved": gonzalez over 10^4 steps keeps H to round-off (relative) and
// omega3 = 0 to round-off.
TEST(Suslov, GonzalezPreservesEnergyAndConstraint) {
  const SuslovRun r = run_method("gonzalez", 0.1, 10000);
  ASSERT_EQ(r.steps, 10000);
  EXPECT_LT(r.max_rel_energy_error, 1e-13);
  EXPECT_LT(r.max_constraint, 1e-14);
  EXPECT_EQ(r.max_q_change, 0.0);
}

// §4.3: "the integrator is here equivalent to the implicit midpoint method" (H quadratic,
// Remark 3.2). gonzalez, avf and itoh_abe agree with `midpoint` to round-off after 100 steps; rk4
// does not preserve H exactly.
TEST(Suslov, GonzalezEqualsImplicitMidpoint) {
  const double h = 0.1;
  const SuslovRun mid = run_method("midpoint", h, 100);
  const SuslovRun gon = run_method("gonzalez", h, 100);
  const SuslovRun avf = run_method("avf", h, 100);
  const SuslovRun ia = run_method("itoh_abe", h, 100);
  ASSERT_EQ(mid.steps, 100);
  EXPECT_LT((gon.zeta_end - mid.zeta_end).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_LT((avf.zeta_end - mid.zeta_end).lpNorm<Eigen::Infinity>(), 1e-13);
  // H is also separable in rho, so the Itoh-Abe discrete gradient is the midpoint gradient too.
  EXPECT_LT((ia.zeta_end - mid.zeta_end).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_LT(mid.max_rel_energy_error, 1e-13);
  EXPECT_LT(mid.max_constraint, 1e-14);
  const SuslovRun rk = run_method("rk4", h, 100);
  EXPECT_LT(rk.max_constraint, 1e-14);
  EXPECT_GT(rk.max_rel_energy_error, 1e-13);
  EXPECT_LT(rk.max_rel_energy_error, 1e-4);
  EXPECT_LT((rk.zeta_end - mid.zeta_end).lpNorm<Eigen::Infinity>(), 1e-2);
}

TEST(Suslov, RegistryDefaultsAndApplicability) {
  const SystemEntry* e = find_system("suslov");
  ASSERT_NE(e, nullptr);
  const auto params = complete_parameters(*e, {});
  EXPECT_EQ(params.at("I11"), kI11);
  EXPECT_EQ(params.at("I22"), kI22);
  EXPECT_EQ(params.at("I33"), kI33);
  EXPECT_EQ(params.at("I13"), kI13);
  EXPECT_EQ(params.at("I23"), kI23);
  for (const char* id : {"si_dla", "i_dla", "gonzalez_f", "avf_f"}) {
    const auto why = e->not_applicable(id);
    ASSERT_TRUE(why.has_value()) << id;
    EXPECT_NE(why->find("constant mass"), std::string::npos) << *why;
    EXPECT_NE(why->find("Lie-Poisson"), std::string::npos) << *why;
  }
  for (const char* id : {"gonzalez_r", "gonzalez_r_fd"}) {
    const auto why = e->not_applicable(id);
    ASSERT_TRUE(why.has_value()) << id;
    EXPECT_NE(why->find("canonical form"), std::string::npos) << *why;
    EXPECT_NE(why->find("Lie-Poisson"), std::string::npos) << *why;
  }
  for (const char* id : {"gonzalez", "avf", "itoh_abe", "midpoint", "rk4"}) {
    EXPECT_FALSE(e->not_applicable(id).has_value()) << id;
  }
  const auto model = e->make(params);
  IntegratorChoice c;
  c.integrator = "si_dla";
  c.h = 0.1;
  EXPECT_THROW(model->make_stepper(c), SpecError);
  c.integrator = "gonzalez";
  EXPECT_NE(model->make_stepper(c), nullptr);
  try {
    complete_parameters(*e, {{"I11", 0.0}});
    ADD_FAILURE() << "I11 = 0 accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "parameters.I11");
  }
  // An ensemble spec asking for si_dla is refused with the reason.
  EnsembleSpec spec;
  spec.system = "suslov";
  spec.initial_conditions = EnergyShellGenerator{};
  std::get<EnergyShellGenerator>(spec.initial_conditions).energy = 0.5;
  std::get<EnergyShellGenerator>(spec.initial_conditions).count = 2;
  spec.integrators.push_back(c);
  spec.integrators.back().integrator = "si_dla";
  spec.t_final = 1.0;
  try {
    validate(spec);
    ADD_FAILURE() << "si_dla accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "integrators[0].integrator");
    EXPECT_NE(err.reason().find("Lie-Poisson"), std::string::npos) << err.reason();
  }
  // Within the bounds but not positive definite: refused when the model is made.
  auto bad = complete_parameters(*e, {{"I33", 1.0}, {"I13", 2.0}});
  try {
    (void)e->make(bad);
    ADD_FAILURE() << "indefinite inertia accepted";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "parameters");
  }
}

// The energy-shell generator projects with mass_matrix_dyn (= I) and mu (= e3): its states have
// omega3 = 0 and H = E, and an ensemble through run_ensemble keeps both.
TEST(Suslov, EnergyShellEnsemble) {
  const SystemEntry* e = find_system("suslov");
  ASSERT_NE(e, nullptr);
  const auto model = e->make(complete_parameters(*e, {}));
  EnergyShellGenerator gen;
  gen.energy = 0.7;
  gen.seed = 99;
  gen.count = 16;
  for (std::int64_t i = 0; i < gen.count; ++i) {
    Eigen::VectorXd q, p;
    std::string reason;
    ASSERT_TRUE(energy_shell_state(*model, gen, i, q, p, reason)) << reason;
    EXPECT_LT(model->constraint_residual(q, p), 1e-14);
    EXPECT_NEAR(model->hamiltonian(q, p), gen.energy, 1e-14);
  }

  EnsembleSpec s;
  s.system = "suslov";
  s.initial_conditions = EnergyShellGenerator{};
  std::get<EnergyShellGenerator>(s.initial_conditions) = gen;
  for (const char* id : {"gonzalez", "midpoint", "avf", "rk4"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.1;
    c.sample_every = 10;
    s.integrators.push_back(c);
  }
  s.t_final = 20.0;
  const EnsembleResult r = run_ensemble(s);
  ASSERT_EQ(r.integrators.size(), 4u);
  auto max_abs = [](const SeriesStats& st) {
    double m = 0.0;
    for (std::size_t k = 0; k < st.min.size(); ++k) {
      m = std::max({m, std::abs(st.min[k]), std::abs(st.max[k])});
    }
    return m;
  };
  for (std::size_t i = 0; i < r.integrators.size(); ++i) {
    const auto& ir = r.integrators[i];
    EXPECT_EQ(ir.trajectories_ok, gen.count);
    ASSERT_EQ(ir.observables[0].observable, "energy_error");
    ASSERT_EQ(ir.observables[2].observable, "constraint_residual");
    if (i < 3) {
      EXPECT_LT(max_abs(ir.observables[0]), 1e-13) << ir.choice.integrator;
    }
    EXPECT_LT(max_abs(ir.observables[2]), 1e-14) << ir.choice.integrator;
  }
  EXPECT_GT(max_abs(r.integrators[3].observables[0]), 1e-13);  // rk4
}

}  // namespace
}  // namespace nhsim

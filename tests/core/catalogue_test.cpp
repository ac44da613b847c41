// The catalogue is derived from two lists (nhsim/systems/registry.hpp AllSystems,
// nhsim/integrators/registry.hpp AllIntegrators): a toy system and a toy integrator go through
// the same path as a real addition (docs/development.md): the system's header (ToyParticle
// below), its catalogue entry (toy_entry), the integrator's method and descriptor
// (ToyEulerMethod, ToyEulerIntegrator), and the lists. The pairs compile through PairUnit, the
// template every generated pair unit instantiates (core/src/pairs.cpp.in). The toy types are in
// an anonymous namespace: their pairs have internal linkage, so scripts/check-pair-instantiations
// counts the registries' pairs only.
#include "nhsim/catalogue.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "catalogue_entry.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/integrators/rk2.hpp"
#include "nhsim/model.hpp"
#include "nhsim/system_types.hpp"
#include "nhsim/systems/gearbox.hpp"
#include "nhsim/systems/registry.hpp"
#include "nhsim/systems/suslov.hpp"
#include "pair_stepper_impl.hpp"

namespace nhsim {
namespace {

// --- The toy system's header: a particle in R^3 with M = I, V = 1/2 |q|^2 and the nonholonomic
// constraint p1 + q3 p2 = 0 (mu = (1, q3, 0)). Canonical form only, like the gearbox.
class ToyParticle : public CanonicalTypes<3, 1> {
 public:
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = true;
  static constexpr bool kHasReducedForm = false;

  int nq() const { return NQ; }
  int nc() const { return NC; }
  template <class VQ>
  double potential(const VQ& q) const {
    return 0.5 * q.squaredNorm();
  }
  template <class VQ, class Out>
  void grad_potential(const VQ& q, Out& g) const {
    g = q;
  }
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    v = p;
  }
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    return Eigen::MatrixXd::Identity(NQ, NQ);
  }
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return 0.5 * p.squaredNorm() + potential(q);
  }
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu(0, 0) = 1.0;
    mu(0, 1) = q(2);
    mu(0, 2) = 0.0;
  }
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(p(0) + q(2) * p(1));
  }
};

// --- Its catalogue entry (core/src/systems/<system>.cpp). The model is not built here: the
// stepper dispatch is compiled for the registries' types only.
SystemEntry toy_entry() {
  SystemInfo info;
  info.name = "toy_particle";
  info.description = "harmonic particle in R^3 with the constraint q1' + q3 q2' = 0";
  info.source = "tests/core/catalogue_test.cpp";
  return catalogue_entry<ToyParticle>(
      std::move(info),
      [](const std::map<std::string, double>&) -> std::unique_ptr<SystemModel> { return nullptr; });
}

// --- The toy integrator's method: symplectic Euler with the multiplier chosen so that the new
// state satisfies the constraint, q' = q + h M^-1 p, p' = p - h grad V(q) + mu(q')^T lambda with
// mu(q') M^-1 p' = 0 (M = I). First order; the constraint holds to round-off.
template <class S>
class ToyEulerMethod {
 public:
  using VecQ = typename S::VecQ;
  ToyEulerMethod(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys), h_(h), v_(sys.nq()), g_(sys.nq()), mu_(sys.nc(), sys.nq()) {}
  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return 0; }
  StepStatus step(double& /*residual*/) {
    sys_.inv_mass_times(q_, p_, v_);
    sys_.grad_potential(q_, g_);
    q_ += h_ * v_;
    p_ -= h_ * g_;
    sys_.constraint(q_, mu_);
    const Eigen::VectorXd lambda =
        -(mu_ * mu_.transpose()).ldlt().solve(mu_ * Eigen::VectorXd(p_));  // test only
    p_ += mu_.transpose() * lambda;
    return StepStatus::kOk;
  }

 private:
  const S& sys_;
  double h_;
  VecQ q_, p_, v_, g_;
  typename S::MatCQ mu_;
};

// --- Its descriptor (nhsim/integrators/descriptors/<name>.hpp).
struct ToyEulerIntegrator {
  static constexpr const char* kDescription = "symplectic Euler projected onto the constraint";
  static constexpr const char* kSource = "tests/core/catalogue_test.cpp";
  static constexpr int kOrder = 1;
  static constexpr bool kImplicit = false;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 0.0;
  static constexpr int kNewtonMaxIter = 0;
  static constexpr const char* kId = "toy_euler";
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>&& ConstantMass<S>&& requires {
    requires S::kIdentityMass;
  };
  static constexpr const char* kRequirement = "a canonical form with M = I";
  template <class S>
  using Method = ToyEulerMethod<S>;
};

// --- The list: a system registry with the toy and two catalogue systems.
using ToySystems =
    std::tuple<CatalogueSystem<&toy_entry, ToyParticle>, CatalogueSystem<&gearbox_entry, Gearbox>,
               CatalogueSystem<&suslov_entry, Suslov>>;
using ToySystemTypes = StepTypesOf<ToySystems>::type;

TEST(Catalogue, APairUnitCompilesExactlyTheApplicablePairs) {
  static_assert(std::is_same_v<ToySystemTypes, std::tuple<ToyParticle, Gearbox, Suslov>>);
  // toy_euler: the toy and the gearbox (canonical, M = I), not Suslov (no canonical form).
  EXPECT_EQ((PairUnit<ToySystemTypes, ToyEulerIntegrator>::compile()), 2);
  // rk2 on the toy (constant M, mu evaluable at a complex q), not on Suslov. (rk2 on the gearbox
  // is the catalogue's pair, compiled in its pair unit only.)
  EXPECT_EQ(
      (PairUnit<std::tuple<ToyParticle, Suslov>, ToyEulerIntegrator, Rk2Integrator>::compile()), 2);
  // The catalogue's own lists: every system type is compiled with something.
  EXPECT_EQ(std::tuple_size_v<CatalogueSystemTypes>, std::tuple_size_v<AllSystems> + 1)
      << "one system, the chaotic quartic system, has a second (dynamic-size) type";
}

TEST(Catalogue, AnAddedSystemGetsEveryIntegratorItsStructureAdmits) {
  // The toy declares the gearbox's structure (canonical form, M = I, no reduced form): its
  // catalogue entry lists the same integrators, with no line naming them.
  const SystemEntry toy = toy_entry();
  EXPECT_EQ(toy.info.integrators, find_system("gearbox")->info.integrators);
  const auto why = toy.not_applicable("gonzalez");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "gonzalez needs a reduced form on D* (adapted frame)");
  // The registry's order of systems is AllSystems' order.
  const auto systems = list_systems();
  ASSERT_EQ(systems.size(), std::tuple_size_v<AllSystems>);
  EXPECT_EQ(systems.front().name, "chaotic_quartic");
  EXPECT_EQ(systems.back().name, "four_bar");
}

TEST(Catalogue, AnAddedIntegratorRunsAtItsOrderAndKeepsTheConstraint) {
  // Its ListIntegrators entry comes from the descriptor.
  const IntegratorInfo info = integrator_info<ToyEulerIntegrator>();
  EXPECT_EQ(info.name, "toy_euler");
  EXPECT_EQ(info.order, 1);
  EXPECT_FALSE(info.implicit);
  EXPECT_EQ(info.requires_, std::vector<std::string>{"a canonical form with M = I"});
  EXPECT_EQ(newton_settings<ToyEulerIntegrator>(IntegratorChoice{}).max_iter, 0);

  const ToyParticle sys;
  Eigen::VectorXd q0(3), p0(3);
  q0 << 0.3, -0.2, 0.5;
  p0 << -0.5 * 0.4, 0.4, 0.1;  // p1 + q3 p2 = 0
  auto state_at = [&](auto make, double h, bool keeps_constraint) {
    std::unique_ptr<Stepper> st = make(h);
    st->set_state(q0, p0);
    EXPECT_EQ(st->advance(std::llround(1.0 / h)).status, StepStatus::kOk);
    Eigen::VectorXd q(3), p(3);
    st->get_state(q, p);
    if (keeps_constraint) {
      EXPECT_LE(st->constraint_residual(), 1e-15 / h);
    }
    Eigen::VectorXd z(6);
    z << q, p;
    return z;
  };
  const auto toy = [&](double h) {
    return make_pair_stepper<ToyParticle, ToyEulerIntegrator>(sys, h, NewtonSettings{});
  };
  const auto rk2 = [&](double h) {
    return make_pair_stepper<ToyParticle, Rk2Integrator>(sys, h, NewtonSettings{});
  };
  const Eigen::VectorXd ref = state_at(rk2, 1e-4, false);
  const double e1 = (state_at(toy, 0.01, true) - ref).norm();
  const double e2 = (state_at(toy, 0.005, true) - ref).norm();
  EXPECT_NEAR(std::log2(e1 / e2), 1.0, 0.1);
}

}  // namespace
}  // namespace nhsim

// The chaotic quartic system ([Celledoni2019] §4.1): reduced and canonical forms agree.
#include "nhsim/systems/chaotic_quartic.hpp"

#include <gtest/gtest.h>

#include <random>

#include "reduced_form_checks.hpp"

namespace nhsim {
namespace {

template <class S>
typename S::VecZ random_zeta(const S& sys, std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 0.7);
  typename S::VecZ z(sys.nz());
  for (int i = 0; i < sys.nz(); ++i) z(i) = nd(rng);
  return z;
}

template <class S>
void check_gradient_and_structure(const S& sys) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE(trial);
    const typename S::VecZ z = random_zeta(sys, rng);
    const typename S::VecZ u = random_zeta(sys, rng), v = random_zeta(sys, rng);
    test::expect_reduced_form_consistent(sys, z, u, v, 1e-8, 1e-12);
  }
}

TEST(ChaoticQuartic, ReducedGradientMatchesFiniteDifferencesAndPiIsSkew) {
  check_gradient_and_structure(ChaoticQuartic<3>(3));
  check_gradient_and_structure(ChaoticQuartic<Eigen::Dynamic>(1));
  check_gradient_and_structure(ChaoticQuartic<Eigen::Dynamic>(4));
}

// Maps eq. (16a-b) are inverse on D*, the reduced Hamiltonian equals the canonical one there,
// and the reduced vector field eq. (9) is the canonical nonholonomic one eq. (6c-d).
TEST(ChaoticQuartic, ReducedAndCanonicalFormsDescribeTheSameMotion) {
  using S = ChaoticQuartic<3>;
  const S sys(3);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const S::VecZ z = random_zeta(sys, rng);
    const S::VecQ q = z.head<7>();
    const S::VecR rho = z.tail<6>();
    S::VecQ p;
    sys.from_reduced(q, rho, p);
    EXPECT_LT(sys.constraint_residual(q, p), 1e-14);
    S::VecR rho2;
    sys.to_reduced(q, p, rho2);
    EXPECT_LT((rho2 - rho).lpNorm<Eigen::Infinity>(), 1e-13);
    EXPECT_NEAR(sys.hamiltonian(q, p), sys.reduced_hamiltonian(z), 1e-13);

    // Canonical nonholonomic vector field: qdot = p, pdot = -grad V + lambda mu^T with lambda
    // from d/dt (mu(q) p) = 0: mu pdot + (dmu/dt) p = 0, dmu/dt = (0, 0, wdot) = (0,0,p_w).
    S::VecQ gv;
    sys.grad_potential(q, gv);
    S::MatCQ mu;
    sys.constraint(q, mu);
    double dmu_p = 0.0;
    for (int i = 0; i < 3; ++i) dmu_p += p(sys.w(i)) * p(sys.z(i));
    const double lambda = (mu.row(0).dot(gv) - dmu_p) / mu.row(0).squaredNorm();
    const S::VecQ qdot = p;
    const S::VecQ pdot = -gv + lambda * mu.row(0).transpose();

    // Reduced field, mapped: qdot must match; rhodot must equal d/dt (X^T p).
    S::VecZ g, f;
    sys.reduced_rhs(z, g, f);
    EXPECT_LT((f.head<7>() - qdot).lpNorm<Eigen::Infinity>(), 1e-12);
    S::VecR rhodot;
    for (int i = 0; i < 3; ++i) {
      rhodot(i) = pdot(sys.w(i));
      rhodot(3 + i) = qdot(sys.w(i)) * p(0) + q(sys.w(i)) * pdot(0) - pdot(sys.z(i));
    }
    EXPECT_LT((f.tail<6>() - rhodot).lpNorm<Eigen::Infinity>(), 1e-12);
  }
}

TEST(ChaoticQuartic, RejectsNonPositiveN) {
  EXPECT_THROW(ChaoticQuartic<Eigen::Dynamic>(0), std::invalid_argument);
}

}  // namespace
}  // namespace nhsim

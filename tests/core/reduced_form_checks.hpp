// A check shared by the tests of systems with a reduced form ([Celledoni2019] eq. (7)-(9)): the
// gradient of the reduced Hamiltonian against central differences, and Pi skew.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>

namespace nhsim::test {

/// At zeta = z (length nz): grad H against central differences of H with step 1e-5 (error
/// O(1e-10) times H's third derivatives) to `gradient_tol`, and Pi(z) skew for the directions u
/// and v, v.Pi u = -u.Pi v and u.Pi u = 0, to `skew_tol` (hence grad H . f = 0: H is conserved).
template <class S>
void expect_reduced_form_consistent(const S& sys, const typename S::VecZ& z,
                                    const typename S::VecZ& u, const typename S::VecZ& v,
                                    double gradient_tol, double skew_tol) {
  using VecZ = typename S::VecZ;
  VecZ g(sys.nz()), gfd(sys.nz());
  sys.reduced_gradient(z, g);
  for (int i = 0; i < sys.nz(); ++i) {
    const double d = 1e-5;
    VecZ zp = z, zm = z;
    zp(i) += d;
    zm(i) -= d;
    gfd(i) = (sys.reduced_hamiltonian(zp) - sys.reduced_hamiltonian(zm)) / (2 * d);
  }
  EXPECT_LT((g - gfd).template lpNorm<Eigen::Infinity>(), gradient_tol);
  VecZ piu(sys.nz()), piv(sys.nz());
  sys.apply_pi(z, u, piu);
  sys.apply_pi(z, v, piv);
  EXPECT_NEAR(v.dot(piu), -u.dot(piv), skew_tol);
  EXPECT_NEAR(u.dot(piu), 0.0, skew_tol);
}

}  // namespace nhsim::test

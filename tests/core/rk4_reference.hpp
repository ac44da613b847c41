// The RK4 reference solution of the [Kobilarov2010] systems, for the tests that compare against it.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "nhsim/integrators/canonical_index1.hpp"
#include "nhsim/stepper.hpp"
#include "test_support.hpp"

namespace nhsim::test {

/// Reference solution for the [Kobilarov2010] systems (constant M, constraint_dot, controls): the
/// classical RK4 on the canonical index-1 equations of `rk2` (CanonicalIndex1Field) with step h,
/// from `ic` at t = 0. Returns the canonical (q, p) after each of the n steps, stacked, the
/// initial state first (n + 1 entries of length 2 nq).
template <class S>
std::vector<Eigen::VectorXd> rk4_canonical(const S& sys, const Ic& ic, double h, long long n,
                                           long long every = 1) {
  CanonicalIndex1Field<S> field(sys);
  typename S::VecQ q = ic.q, p = ic.p, k1q, k1p, k2q, k2p, k3q, k3p, k4q, k4p;
  std::vector<Eigen::VectorXd> out;
  auto push = [&] {
    Eigen::VectorXd z(2 * sys.nq());
    z << q, p;
    out.push_back(z);
  };
  push();
  for (long long k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) * h;
    field(q, p, t, k1q, k1p);
    field(q + 0.5 * h * k1q, p + 0.5 * h * k1p, t + 0.5 * h, k2q, k2p);
    field(q + 0.5 * h * k2q, p + 0.5 * h * k2p, t + 0.5 * h, k3q, k3p);
    field(q + h * k3q, p + h * k3p, t + h, k4q, k4p);
    q += (h / 6) * (k1q + 2 * k2q + 2 * k3q + k4q);
    p += (h / 6) * (k1p + 2 * k2p + 2 * k3p + k4p);
    if ((k + 1) % every == 0) push();
  }
  return out;
}

}  // namespace nhsim::test

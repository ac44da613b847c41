// The holonomic-constraint contract (nhsim/holonomic.hpp): detection and the two residuals, on
// a planar pendulum in Cartesian coordinates, g(q) = (|q|^2 - 1) / 2, G(q) = q^T, M = m I.
#include "nhsim/holonomic.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "nhsim/systems/rolling_disk.hpp"

namespace nhsim {
namespace {

struct PlanarPendulum {
  static constexpr int NQ = 2;
  static constexpr int NG = 1;
  using VecQ = Eigen::Matrix<double, 2, 1>;
  using VecG = Eigen::Matrix<double, 1, 1>;
  using MatGQ = Eigen::Matrix<double, 1, 2>;
  double m = 2.0;
  int nq() const { return NQ; }
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    v = p / m;
  }
  template <class VQ, class Out>
  void holonomic_constraint(const VQ& q, Out& g) const {
    g(0) = 0.5 * (q.squaredNorm() - 1.0);
  }
  template <class VQ, class Out>
  void holonomic_jacobian(const VQ& q, Out& G) const {
    G = q.transpose();
  }
};

static_assert(HasHolonomicConstraints<PlanarPendulum>);
static_assert(!HasHolonomicConstraints<RollingDisk>);

TEST(Holonomic, ResidualsOfAPlanarPendulum) {
  const PlanarPendulum sys;
  PlanarPendulum::VecQ q(std::cos(0.3), std::sin(0.3));
  PlanarPendulum::VecQ p(-std::sin(0.3), std::cos(0.3));  // tangent: G M^-1 p = 0
  EXPECT_LE(position_constraint_residual(sys, q), 1e-16);
  EXPECT_LE(velocity_constraint_residual(sys, q, p), 1e-16);
  q *= 1.1;  // |q|^2 = 1.21: g = 0.105
  EXPECT_NEAR(position_constraint_residual(sys, q), 0.105, 1e-15);
  p = q;  // radial: G M^-1 p = |q|^2 / m = 0.605
  EXPECT_NEAR(velocity_constraint_residual(sys, q, p), 0.605, 1e-15);
}

}  // namespace
}  // namespace nhsim

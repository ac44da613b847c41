// RDP ([Kobilarov2010] §5, eq. (27)-(28)) and its SE(2) maps (App. A-B): the retractions against
// the matrix definitions, dtau^-1 against the right-trivialized derivative of tau, and the
// integrators' constraint preservation and second order on the snakeboard and the sleigh.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unsupported/Eigen/MatrixFunctions>

#include "nhsim/integrators/se2.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/snakeboard.hpp"
#include "rk4_reference.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

Eigen::Matrix3d cay_matrix(const Eigen::Vector3d& v) {
  const Eigen::Matrix3d x = se2::hat(v), e = Eigen::Matrix3d::Identity();
  return (e - 0.5 * x).inverse() * (e + 0.5 * x);
}

TEST(Se2Maps, RetractionsMatchTheMatrixDefinitions) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::Vector3d v(nd(rng), nd(rng), nd(rng));
    if (trial == 0) v(0) = 3e-5;  // the series branch of exp
    const Eigen::Matrix3d ex = se2::hat(v).exp();
    EXPECT_LT((se2::matrix(se2::exp_map(v)) - ex).norm(), 1e-12);
    EXPECT_LT((se2::matrix(se2::cay_map(v)) - cay_matrix(v)).norm(), 1e-12);
    // [ad_v] w is the bracket [v-hat, w-hat].
    const Eigen::Vector3d w(nd(rng), nd(rng), nd(rng));
    const Eigen::Matrix3d br = se2::hat(v) * se2::hat(w) - se2::hat(w) * se2::hat(v);
    const Eigen::Vector3d adw = se2::ad(v) * w;
    EXPECT_LT((se2::hat(adw) - br).norm(), 1e-13);
  }
  EXPECT_LT(
      (se2::matrix(se2::cay_map(Eigen::Vector3d::Zero())) - Eigen::Matrix3d::Identity()).norm(),
      1e-16);
}

/// [dtau_v] by central differences: column j = vee((d/ds tau(v + s e_j)) tau(v)^-1).
template <class Tau>
Eigen::Matrix3d dtau_numeric(const Eigen::Vector3d& v, Tau tau) {
  Eigen::Matrix3d d;
  const double e = 1e-6;
  for (int j = 0; j < 3; ++j) {
    Eigen::Vector3d vp = v, vm = v;
    vp(j) += e;
    vm(j) -= e;
    const Eigen::Matrix3d m = (tau(vp) - tau(vm)) / (2 * e) * tau(v).inverse();
    d.col(j) = Eigen::Vector3d(m(1, 0), m(0, 2), m(1, 2));
  }
  return d;
}

TEST(Se2Maps, InverseTangentsInvertTheRightTrivializedDerivative) {
  std::mt19937_64 rng(4);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Vector3d v(nd(rng), nd(rng), nd(rng));
    // Cayley, eq. (44): exact.
    const Eigen::Matrix3d dc = dtau_numeric(v, cay_matrix);
    EXPECT_LT((se2::dcay_inv(v) * dc - Eigen::Matrix3d::Identity()).norm(), 1e-8);
    // exp, eq. (42): the truncated series, error O(|v|^3): scales by 8 when v halves... at
    // small v the product is I to within 0.1 |v|^3.
    for (double s : {0.1, 0.05}) {
      const Eigen::Vector3d vs = s * v;
      const Eigen::Matrix3d de = dtau_numeric(
          vs, [](const Eigen::Vector3d& x) { return Eigen::Matrix3d(se2::hat(x).exp()); });
      const double err = (se2::dexp_inv(vs) * de - Eigen::Matrix3d::Identity()).norm();
      EXPECT_LT(err, 0.1 * std::pow(vs.norm(), 3) + 1e-9) << s;
    }
  }
}

TEST(Rdp, KeepsTheConstraintAndIsSecondOrderOnTheSnakeboard) {
  Snakeboard sys(1.0, 1.0, 0.5, 2.0);
  ControlSpec c0, c1;
  c0.kind = ControlSpec::Kind::kCosine;
  c0.amplitude = 0.5;
  c0.omega = 2.0;
  c1.kind = ControlSpec::Kind::kSine;
  c1.amplitude = 0.3;
  c1.omega = 1.0;
  sys.set_controls({c0, c1});
  Snakeboard::VecQ q, p;
  sys.state_from_shape(0.3, 0.4, 0.2, 0.1, -0.2, 0.8, -0.1, -0.5, q, p);
  const test::Ic ic{q, p};
  const Eigen::VectorXd ref = test::rk4_canonical(sys, ic, 1.0 / 512, 5120).back();
  for (const char* id : {"rdp_exp", "rdp_cay", "nh_rattle", "nh_rattle_projected", "rk2"}) {
    const double order = test::observed_order(sys, id, 0.1, ic, ref);
    EXPECT_NEAR(order, 2.0, 0.15) << id;
    const Eigen::VectorXd z = test::state_at(sys, id, 0.1, 10.0, ic);
    const double res =
        sys.constraint_residual(Snakeboard::VecQ(z.head(5)), Snakeboard::VecQ(z.tail(5)));
    if (std::string(id) == "rk2") {
      EXPECT_GT(res, 1e-6) << id;  // the baseline drifts off the constraint
    } else {
      EXPECT_LT(res, 1e-13) << id;
    }
  }
}

TEST(Rdp, SleighRoundTripAndSecondOrder) {
  const ChaplyginSleighCom sys(1.0, 1.0, 1.0);
  ChaplyginSleighCom::VecQ q, p;
  // Forward motion, slow turning: the GNI's parasitic mode (see chaplygin_sleigh_com_test)
  // stays below the O(h^2) error over t = 10.
  sys.state_from_velocities(0.4, 1.0, -2.0, 0.2, 0.3, q, p);
  const test::Ic ic{q, p};
  // set_canonical / canonical round trip with no step.
  for (const char* id : {"rdp_exp", "rdp_cay"}) {
    auto st = test::make_stepper(sys, id, 0.1);
    st->set_state(ic.q, ic.p);
    Eigen::VectorXd q1(3), p1(3);
    st->get_state(q1, p1);
    EXPECT_LT((q1 - ic.q).norm() + (p1 - ic.p).norm(), 1e-14) << id;
  }
  const Eigen::VectorXd ref = test::rk4_canonical(sys, ic, 1.0 / 512, 5120).back();
  for (const char* id : {"rdp_exp", "rdp_cay", "nh_rattle", "rk2"}) {
    EXPECT_NEAR(test::observed_order(sys, id, 0.2, ic, ref), 2.0, 0.15) << id;
  }
}

}  // namespace
}  // namespace nhsim

// `gonzalez_r` and `gonzalez_r_fd` ([Celledoni2019] §3.3, Algorithm 1, Remark 3.5): the QR frame,
// energy and constraint preservation, order, and applicability.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/integrators/qr_frame.hpp"
#include "nhsim/stepper_factory.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/chaplygin_sleigh.hpp"
#include "nhsim/systems/rolling_disk.hpp"
#include "nhsim/systems/suslov.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using test::Ic;

using test::sci;

// A = mu^T of the chaotic quartic system (n = 3), the rolling disk and the sleigh, at generic
// points: X^T X = I, mu X = 0, and Algorithm 1's p^T dX/dq^i (adjoint form, exact dA/dq^i)
// agrees with central differences of p^T X (same frozen signs) to 1e-7 for a generic p; with one
// constraint row, pullback_along and pullback_transpose give t y and t^T v to round-off.
template <class Sys>
void check_frame(const Sys& sys, const Eigen::VectorXd& q) {
  const int n = sys.nq(), nc = sys.nc(), m = n - nc;
  auto mu_at = [&](const Eigen::VectorXd& x) {
    Eigen::MatrixXd mu(nc, n);
    sys.constraint(x, mu);
    return mu;
  };
  // da[c](j, i) = d mu_cj / dq^i by central differences of mu (mu is smooth: error ~ 1e-10).
  std::vector<Eigen::MatrixXd> da(static_cast<std::size_t>(nc), Eigen::MatrixXd(n, n));
  const double e = 1e-5;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd qp = q, qm = q;
    qp(i) += e;
    qm(i) -= e;
    const Eigen::MatrixXd dmu = (mu_at(qp) - mu_at(qm)) / (2.0 * e);
    for (int c = 0; c < nc; ++c) da[static_cast<std::size_t>(c)].col(i) = dmu.row(c).transpose();
  }
  HouseholderFrame<> f(n, nc);
  auto frame_at = [&](const Eigen::VectorXd& x) {
    f.compute(mu_at(x).transpose());
    Eigen::MatrixXd qq = Eigen::MatrixXd::Identity(n, n);
    f.apply_q(qq);
    return Eigen::MatrixXd(qq.rightCols(m));
  };
  f.choose_signs(mu_at(q).transpose());
  const Eigen::MatrixXd x = frame_at(q);
  EXPECT_LT((x.transpose() * x - Eigen::MatrixXd::Identity(m, m)).norm(), 1e-14);
  EXPECT_LT((mu_at(q) * x).norm(), 1e-14);
  const Eigen::VectorXd p = Eigen::VectorXd::LinSpaced(n, 0.7, -1.3);
  Eigen::MatrixXd t(m, n);
  f.pullback_derivatives(Eigen::MatrixXd(mu_at(q).transpose()), da, p, t);
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd qp = q, qm = q;
    qp(i) += e;
    qm(i) -= e;
    const Eigen::VectorXd cd = (frame_at(qp) - frame_at(qm)).transpose() * p / (2.0 * e);
    worst = std::max(worst, (cd - t.col(i)).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(worst, 1e-7);
  ::testing::Test::RecordProperty("max_dX_deviation", sci(worst));
  if (nc != 1) return;
  // One constraint row: the products t y and t^T v that gonzalez_r takes from the reflector's
  // derivative equal those of the t just computed, to round-off.
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, -0.4, 1.1);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(m, 0.9, -0.2);
  Eigen::VectorXd ty(m), tv(n);
  f.compute(mu_at(q).transpose());  // frame_at left the frame at a shifted point
  f.pullback_along(mu_at(q).transpose(), da[0], p, y, ty);
  f.pullback_transpose(mu_at(q).transpose(), da[0], p, v, tv);
  EXPECT_LT((ty - t * y).lpNorm<Eigen::Infinity>(), 1e-14 * (t * y).lpNorm<Eigen::Infinity>());
  EXPECT_LT((tv - t.transpose() * v).lpNorm<Eigen::Infinity>(),
            1e-14 * (t.transpose() * v).lpNorm<Eigen::Infinity>());
}

TEST(GonzalezR, QrFrameIsOrthonormalAnnihilatesMuAndAlgorithm1MatchesDifferences) {
  Eigen::VectorXd q(7);
  q << 0.3, -0.7, 0.4, 1.2, -0.5, 0.9, 0.2;
  check_frame(ChaoticQuartic<3>(3), q);
  check_frame(RollingDisk(2.0, 0.5, 0.3, 0.7), Eigen::Vector4d(0.3, -0.2, 2.4, 1.1));
  check_frame(ChaplyginSleigh(8.0, 1.0, 1.0), Eigen::Vector3d(-5.0, 0.0, -2.0));
}

// Chaotic quartic n = 3, h = 0.05, 10^4 steps: energy to 1e-13 relative, constraint to 1e-13.
TEST(GonzalezR, ChaoticQuarticKeepsEnergyAndConstraint) {
  using Sys = ChaoticQuartic<3>;
  const Ic ic = test::chaotic_shell_state(0);
  for (const std::string id : {"gonzalez_r", "gonzalez_r_fd"}) {
    auto st = test::make_stepper(Sys(3), id, 0.05);
    ASSERT_NE(st, nullptr);
    st->set_state(ic.q, ic.p);
    const double h0 = st->energy();
    double max_rel = 0.0, max_res = 0.0;
    for (int k = 0; k < 100; ++k) {
      const AdvanceResult r = st->advance(100);
      ASSERT_EQ(r.status, StepStatus::kOk) << id << " at block " << k;
      double en = 0.0, res = 0.0;
      st->energy_and_residual(en, res);
      max_rel = std::max(max_rel, std::abs(en - h0) / std::abs(h0));
      max_res = std::max(max_res, res);
    }
    EXPECT_LT(max_rel, 1e-13) << id;
    EXPECT_LT(max_res, 1e-13) << id;
    RecordProperty(id + "_max_rel_energy_error", sci(max_rel));
    RecordProperty(id + "_max_constraint_residual", sci(max_res));
  }
}

// Observed order 2 +- 0.15 against an rk4 reference (h = 1e-3) at t = 10.
TEST(GonzalezR, ChaoticQuarticSecondOrder) {
  using Sys = ChaoticQuartic<3>;
  const Sys sys(3);
  const Ic ic = test::chaotic_shell_state(1);
  const Eigen::VectorXd ref = test::state_at(sys, "rk4", 1e-3, 10.0, ic);
  for (const std::string id : {"gonzalez_r", "gonzalez_r_fd"}) {
    const double order = test::observed_order(sys, id, 0.02, ic, ref);
    EXPECT_NEAR(order, 2.0, 0.15) << id;
    RecordProperty("order_" + id, std::to_string(order));
  }
}

// Rolling disk: converges to `exact` at second order (step halving 0.1, 0.05, 0.025, t = 10).
TEST(GonzalezR, RollingDiskConvergesToExactAtSecondOrder) {
  const RollingDisk sys(2.0, 0.5, 0.3, 0.7);
  Ic ic;
  ic.q = Eigen::Vector4d(0.3, -0.2, 0.4, 1.1);
  RollingDisk::VecQ p;
  sys.from_reduced(RollingDisk::VecQ(ic.q), RollingDisk::VecR(1.3, 0.8), p);
  ic.p = p;
  const Eigen::VectorXd ref = test::state_at(sys, "exact", 10.0, 10.0, ic);
  for (const std::string id : {"gonzalez_r", "gonzalez_r_fd"}) {
    const double order = test::observed_order(sys, id, 0.1, ic, ref);
    EXPECT_NEAR(order, 2.0, 0.15) << id;
  }
}

// Chaplygin sleigh (theta-dependent M): energy and constraint to 1e-13 over 1000 steps, h = 0.1.
TEST(GonzalezR, ChaplyginSleighKeepsEnergyAndConstraint) {
  const ChaplyginSleigh sys(8.0, 1.0, 1.0);
  const ChaplyginSleigh::VecQ q0(-5.0, 0.0, 0.1);
  ChaplyginSleigh::VecQ p0;
  sys.from_reduced(q0, ChaplyginSleigh::VecR(1.0, -0.6), p0);
  for (const std::string id : {"gonzalez_r", "gonzalez_r_fd"}) {
    auto st = test::make_stepper(sys, id, 0.1);
    ASSERT_NE(st, nullptr);
    st->set_state(q0, p0);
    const double h0 = st->energy();
    double max_rel = 0.0, max_res = 0.0;
    for (int k = 0; k < 100; ++k) {
      const AdvanceResult r = st->advance(10);
      ASSERT_EQ(r.status, StepStatus::kOk) << id << " at block " << k;
      double en = 0.0, res = 0.0;
      st->energy_and_residual(en, res);
      max_rel = std::max(max_rel, std::abs(en - h0) / std::abs(h0));
      max_res = std::max(max_res, res);
    }
    EXPECT_LT(max_rel, 1e-13) << id;
    EXPECT_LT(max_res, 1e-13) << id;
    RecordProperty(id + "_max_rel_energy_error", sci(max_rel));
  }
}

// Suslov has no canonical form (kHasCanonicalForm = false): both are refused with a reason.
TEST(GonzalezR, RefusedOnSuslov) {
  static_assert(!CanonicalForm<Suslov>);
  static_assert(CanonicalForm<ChaoticQuartic<3>>);
  for (const std::string id : {"gonzalez_r", "gonzalez_r_fd"}) {
    const auto why = integrator_not_applicable<Suslov>(id);
    ASSERT_TRUE(why.has_value()) << id;
    EXPECT_EQ(*why, id + " needs a canonical form (M, V, mu on T*Q)");
    const SystemEntry* e = find_system("suslov");
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->not_applicable(id).has_value()) << id;
  }
}

}  // namespace
}  // namespace nhsim

// SimplifiedNewton's full-Newton fallback (nhsim/newton.hpp) on scalar equations whose Newton
// iterates are known by hand: it damps its corrections so that it does not jump to a distant
// root, and it takes the undamped iterates, to the bit, where those converge. Its
// Broyden update of a stale inverse Jacobian. And its results do not depend on where it lies.
#include "nhsim/newton.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <numbers>
#include <random>

namespace nhsim {
namespace {

using Newton1 = SimplifiedNewton<1>;
using Vec1 = Newton1::Vec;
using Mat1 = Newton1::Mat;

// sin x = 0 from the predictor x0 = 1.3 with the exact Jacobian cos x. The frozen-Jacobian
// iteration oscillates (1.3, -2.3, 0.48, -1.2, ...) and fails, so the full-Newton fallback runs.
// Its first undamped step lands at 1.3 - tan 1.3 = -2.30, from where Newton converges to -pi,
// 4.4 from the predictor, although the root 0 is 1.3 from it: that is what an undamped fallback
// does. The damped fallback halves that first step (the simplified correction at
// -2.30 is 2.78, more than (1 - 1/4) 3.60) and converges to 0.
TEST(SimplifiedNewton, FallbackConvergesToTheRootNearThePredictor) {
  Newton1 newton(1);
  Vec1 x;
  x << 1.3;
  auto residual = [](const Vec1& y, Vec1& r) { r(0) = std::sin(y(0)); };
  auto jacobian = [](const Vec1& y, Mat1& j) { j(0, 0) = std::cos(y(0)); };
  double increment = 0.0;
  ASSERT_EQ(newton.solve(x, residual, jacobian, NewtonSettings{1e-14, 50}, increment),
            StepStatus::kOk);
  EXPECT_LT(std::abs(x(0)), 1e-14) << "converged to " << x(0);
  EXPECT_GT(std::abs(x(0) + std::numbers::pi), 3.0) << "the distant root -pi";
}

// x^3 = 8 from x0 = 5 with the exact Jacobian and an iteration cap of 20: the frozen-Jacobian
// iteration contracts only by theta ~ 0.84 per step near the root (J = 75 against 12) and runs
// out of iterations, so the fallback runs. From above, Newton on x^3 - 8 decreases monotonically to
// 2, every full step passes the monotonicity test, and the fallback's iterates are plain Newton's:
// the result is the same double as the hand-written iteration with the same stopping rule (|dx| /
// max(1, |x0|) <= tol).
TEST(SimplifiedNewton, FallbackTakesFullStepsWhereNewtonConverges) {
  Newton1 newton(1);
  Vec1 x;
  x << 5.0;
  auto residual = [](const Vec1& y, Vec1& r) { r(0) = y(0) * y(0) * y(0) - 8.0; };
  auto jacobian = [](const Vec1& y, Mat1& j) { j(0, 0) = 3.0 * y(0) * y(0); };
  double increment = 0.0;
  const NewtonSettings settings{1e-14, 20};
  ASSERT_EQ(newton.solve(x, residual, jacobian, settings, increment), StepStatus::kOk);
  double y = 5.0;
  for (int it = 0; it < settings.max_iter; ++it) {
    const double dy = (y * y * y - 8.0) / (3.0 * y * y);
    y -= dy;
    if (std::abs(dy) / 5.0 <= settings.tol) break;
  }
  EXPECT_EQ(x(0), y);
  EXPECT_NEAR(x(0), 2.0, 1e-15);
  EXPECT_GT(newton.factorisations(), 1) << "the full-Newton fallback ran";
}

// x^2 + 1 = 0 has no real root: the fallback stops (no damping factor passes, or the cap) and
// reports the failure with x back at the predictor.
TEST(SimplifiedNewton, FallbackFailsWithoutARootAndRestoresThePredictor) {
  Newton1 newton(1);
  Vec1 x;
  x << 0.5;
  auto residual = [](const Vec1& y, Vec1& r) { r(0) = y(0) * y(0) + 1.0; };
  auto jacobian = [](const Vec1& y, Mat1& j) { j(0, 0) = 2.0 * y(0); };
  double increment = 0.0;
  EXPECT_EQ(newton.solve(x, residual, jacobian, NewtonSettings{1e-14, 50}, increment),
            StepStatus::kNewtonFailed);
  EXPECT_EQ(x(0), 0.5);
}

// Broyden's update (JacobianUpdate::kBroyden) on x0^2 + x1 = 3, x0 + x1^2 = 5 (root (1, 2)) with
// a stale Jacobian, the exact one at (1.3, 2.4) whatever the iterate (a reused factorisation
// after the state moved): the frozen iteration contracts by about 0.25 per step and needs 25
// iterations to 1e-14; the updated inverse follows the secants and converges superlinearly, in
// fewer than half of them, to the same root.
TEST(SimplifiedNewton, BroydenUpdateConvergesInFewerIterationsToTheSameRoot) {
  using Newton2 = SimplifiedNewton<2>;
  auto residual = [](const Newton2::Vec& y, Newton2::Vec& r) {
    r << y(0) * y(0) + y(1) - 3.0, y(0) + y(1) * y(1) - 5.0;
  };
  auto stale = [](const Newton2::Vec& /*y*/, Newton2::Mat& j) { j << 2.6, 1.0, 1.0, 4.8; };
  const NewtonSettings settings{1e-14, 50};
  std::int64_t iterations[2] = {0, 0};
  int k = 0;
  for (const JacobianUpdate update : {JacobianUpdate::kNone, JacobianUpdate::kBroyden}) {
    Newton2 newton(2, update);
    Newton2::Vec x(1.1, 1.9);
    double increment = 0.0;
    ASSERT_EQ(newton.solve(x, residual, stale, settings, increment), StepStatus::kOk);
    EXPECT_NEAR(x(0), 1.0, 1e-14);
    EXPECT_NEAR(x(1), 2.0, 1e-14);
    EXPECT_EQ(newton.factorisations(), 1) << "no refresh, no fallback";
    iterations[k++] = newton.iterations();
  }
  EXPECT_GE(iterations[0], 15);
  EXPECT_LE(2 * iterations[1], iterations[0]);
  RecordProperty("iterations_frozen", static_cast<int>(iterations[0]));
  RecordProperty("iterations_broyden", static_cast<int>(iterations[1]));
}

// The solution of A x + sin(x) / 4 = b for 13 unknowns (the reduced chaotic quartic system's
// count: an odd size, which Eigen's product takes in packets from its first 16-byte aligned row)
// on the stale Jacobian A, with and without Broyden's update, by a SimplifiedNewton at a 16-byte
// aligned address and by one 8 bytes past it. The same bits: a method's trajectories do not depend
// on the offset of its SimplifiedNewton in the stepper object (lazy_product.hpp).
TEST(SimplifiedNewton, ResultsDoNotDependOnWhereTheSolverLies) {
  using Newton13 = SimplifiedNewton<13>;
  static_assert(alignof(Newton13) <= 8, "placed 8 bytes past an aligned address below");
  std::mt19937_64 g(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Newton13::Mat a = Newton13::Mat::Identity() * 4.0;
  for (int i = 0; i < 13 * 13; ++i) a.data()[i] += u(g);
  Newton13::Vec b;
  for (int i = 0; i < 13; ++i) b(i) = 3.0 * u(g);
  auto residual = [&](const Newton13::Vec& y, Newton13::Vec& r) {
    r = a * y + 0.25 * y.array().sin().matrix() - b;
  };
  auto stale = [&](const Newton13::Vec& /*y*/, Newton13::Mat& j) { j = a; };
  for (const JacobianUpdate update : {JacobianUpdate::kNone, JacobianUpdate::kBroyden}) {
    Newton13::Vec x[2];
    for (const int offset : {0, 8}) {
      alignas(16) unsigned char buffer[sizeof(Newton13) + 16];
      Newton13* newton = new (buffer + offset) Newton13(13, update);
      x[offset / 8].setZero();
      double increment = 0.0;
      ASSERT_EQ(newton->solve(x[offset / 8], residual, stale, NewtonSettings{1e-15, 50}, increment),
                StepStatus::kOk);
      EXPECT_GE(newton->iterations(), 5) << "the product with the inverse, many times";
      newton->~Newton13();
    }
    EXPECT_EQ(std::memcmp(x[0].data(), x[1].data(), sizeof(Newton13::Vec)), 0)
        << "update " << static_cast<int>(update);
  }
}

}  // namespace
}  // namespace nhsim

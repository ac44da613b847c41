// Simplified Newton iteration with LU reuse for the implicit one-step methods.
//
// Solves F(x) = 0 for x in R^NX from a predictor, with an approximate Jacobian J ~ dF/dx whose
// LU factorisation is kept across calls (i.e. across steps) while the iteration contracts fast.
// The factorisation is refreshed when the contraction factor theta = |dx_k| / |dx_{k-1}|
// exceeds 0.5, when the iteration fails to converge, or when the previous solve needed many
// iterations. When even a fresh factorisation at the predictor fails, a full Newton iteration
// (Jacobian at every iterate), damped by Deuflhard's restricted monotonicity test, is the last
// resort before kNewtonFailed. Optionally (JacobianUpdate::kBroyden) the reused inverse is
// improved by Broyden's update from each iteration's secant pair, so that it follows the state
// between refreshes. All storage is allocated at construction; solve() allocates nothing.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nhsim/eigen_order_inverse.hpp"
#include "nhsim/lazy_product.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// How SimplifiedNewton treats its reused inverse Jacobian between refreshes.
enum class JacobianUpdate : unsigned char {
  kNone,     ///< kept as factorised
  kBroyden,  ///< Broyden's ("good") rank-one update from each iteration's secant pair
};

template <int NX>
class SimplifiedNewton {
 public:
  using Vec = Eigen::Matrix<double, NX, 1>;
  using Mat = Eigen::Matrix<double, NX, NX>;

  explicit SimplifiedNewton(int n, JacobianUpdate update = JacobianUpdate::kNone)
      : x0_(n),
        r_(n),
        dx_(n),
        w_(n),
        xt_(n),
        rt_(n),
        dxt_(n),
        jac_(n, n),
        inv_(n, n),
        lu_(n),
        update_(update),
        dxp_(n),
        row_(n),
        unit_(Vec::Ones(n)) {}

  /// Marks the stored factorisation stale (e.g. after a state reset).
  void invalidate() { have_lu_ = false; }

  /// Per-unknown factors u_i > 0 of the round-off test with a fresh Jacobian below (default 1):
  /// there, unknown i's increment counts as u_i |dx_i|_w. For a multiplier that enters the state
  /// only as an impulse h lambda (spark2, i_dla), u_i = |h|: the residual's round-off, eps times
  /// the size of its terms, reaches lambda through a Jacobian column of size ~h (spark2's
  /// constraint rows) or ~h^2 (i_dla's position rows), i.e. amplified by ~1/h, while h lambda, what
  /// moves the state, carries it unamplified. Measured in lambda itself, the stalled increments of
  /// the chaotic quartic system at h = 0.001 reached 1e-14 to 4e-13, above the floor 1e3 eps
  /// ~ 2.2e-13: those steps ended in kNewtonFailed although the iteration had converged to
  /// round-off. The tolerance test (|dx|_w <= tol) and the stagnation test on a reused Jacobian are
  /// not affected: a stale Jacobian that stalls above 1e3 eps is still refreshed first, so that a
  /// step that converged before converges to the same bits.
  void set_roundoff_units(const Vec& u) {
    unit_ = u;
    has_units_ = (u.array() != 1.0).any();
  }

  /// Solves F(x) = 0 in place. `residual(x, r)` writes F(x); `jacobian(x, J)` writes an
  /// approximation of dF/dx at x. Convergence is measured componentwise, in the weighted norm
  /// |dx|_w = max_i |dx_i| / max(1, |x0_i|) (x0 = the predictor): the iteration stops when
  /// |dx|_w <= tol (the error left is then ~ theta |dx|, far below tol: energy preservation
  /// needs that), or when a stagnating increment (theta >= 0.9) is already below the round-off
  /// floor 1e3 * eps, or when, with a fresh Jacobian, the increment stopped shrinking
  /// (theta >= 1) below 1e3 * eps * max(1, max_i |x0_i|). The floor scales with the largest unknown
  /// because round-off in a large component reaches the small ones through the residual: a pendulum
  /// angle wound up to |q3| ~ 1e3 (the gearbox of [Celledoni2019] §4.4 over t = 50000) carries an
  /// absolute error ~ 1e3 eps into sin(q3) and hence into every momentum update.
  /// Componentwise, so that large coordinates (a position far from the origin) do not loosen
  /// the tolerance on the small ones (momenta). `state_scale` (>= 0, default 0) is for methods
  /// whose unknowns are increments of a state (x = q1 - q0, ...): the largest |component| of that
  /// state, whose round-off reaches the residual although it is not among the unknowns (a
  /// wound-up angle q0 enters sin(q0 + dq / 2)); the floor above then uses
  /// max(1, max_i |x0_i|, state_scale). In that test with a fresh Jacobian (and in the same test of
  /// the full Newton fallback below), not in the tolerance test nor in the stagnation test, the
  /// increment is max_i u_i |dx_i| w_i with the units u of set_roundoff_units() (1 unless the
  /// method sets them). Returns kOk or kNewtonFailed; `last_increment` is the final |dx|_w.
  template <class Residual, class Jacobian>
  StepStatus solve(Vec& x, Residual&& residual, Jacobian&& jacobian, const NewtonSettings& s,
                   double& last_increment, double state_scale = 0.0) {
    x0_ = x;
    w_ = x0_.cwiseAbs().cwiseMax(1.0).cwiseInverse();
    constexpr double kAbsoluteFloor = 1e3 * std::numeric_limits<double>::epsilon();
    const double floor = kAbsoluteFloor * std::max({1.0, x0_.cwiseAbs().maxCoeff(), state_scale});
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool fresh = false;
      x = x0_;
      if (!have_lu_ || attempt > 0) {
        jacobian(x, jac_);
        // Small systems: one mat-vec per iteration beats two triangular solves.
        factorise();
        have_lu_ = true;
        fresh = true;
        ++factorisations_;
      }
      double prev = std::numeric_limits<double>::infinity();
      for (int it = 1; it <= s.max_iter; ++it) {
        residual(x, r_);
        lazy_product(inv_, r_, dx_);  // dx_.noalias() = inv_.lazyProduct(r_), bit for bit
        if (update_ == JacobianUpdate::kBroyden) broyden_update(it >= 2 ? prev : 0.0);
        x -= dx_;
        ++iterations_;
        const double nd = dx_.cwiseAbs().cwiseProduct(w_).maxCoeff();
        last_increment = nd;
        if (!std::isfinite(nd)) break;
        const double theta = nd / prev;
        if (nd <= s.tol) {
          if (it > 7 || theta > 0.5) have_lu_ = false;  // refactor at the next step
          return StepStatus::kOk;
        }
        if (it >= 2 && theta > 0.5) {
          if (theta >= 0.9 && nd <= kAbsoluteFloor) {
            return StepStatus::kOk;  // stagnation at the round-off floor
          }
          // Round-off of the largest unknown: only when the increment stopped shrinking at all
          // (theta >= 1) with a fresh Jacobian. Slow contraction (theta < 1, e.g. a stale or
          // poor Jacobian) is no sign of round-off and iterates on to the tolerance.
          if (fresh && theta >= 1.0 && roundoff_increment(nd) <= floor) return StepStatus::kOk;
          if (theta >= 1.0 || !fresh) break;  // diverging, or slow with a stale Jacobian
        }
        prev = nd;
      }
      if (fresh) break;  // a fresh Jacobian did not help: full Newton below
    }
    // Last resort, only after the simplified iteration failed with a fresh Jacobian: full
    // Newton from the predictor, the Jacobian re-evaluated at every iterate. A poor predictor
    // (a body turning by ~2 rad per step, [Gebhardt2020] case 2) can make the frozen-Jacobian
    // iteration diverge where Newton itself converges quadratically after a pre-asymptotic
    // phase. Undamped, that phase can also jump into the basin of a distant root (sin x = 0
    // from x0 = 1.3: the first step lands at -2.3 and Newton converges to -pi, not to 0), which
    // would be accepted as the step. So each correction dx is damped (Deuflhard 2004, "Newton
    // Methods for Nonlinear Problems", §3.1.4, the restricted monotonicity test): the largest
    // lambda in 1, 1/2, 1/4, ... >= 2^-10 with |J(x)^-1 F(x - lambda dx)|_w <= (1 - lambda / 4)
    // |dx|_w is taken. Near a root the full step passes the test, so a well-posed solve
    // takes the same iterates, to the bit, as undamped Newton. Divergence is not a stop
    // criterion here; the iteration cap, non-finite increments and a damping factor below
    // 2^-10 are.
    x = x0_;
    residual(x, r_);
    double prev = std::numeric_limits<double>::infinity();
    for (int it = 1; it <= s.max_iter; ++it) {
      jacobian(x, jac_);
      lu_.compute(jac_);
      ++factorisations_;
      dx_.noalias() = lu_.solve(r_);
      ++iterations_;
      const double nd = dx_.cwiseAbs().cwiseProduct(w_).maxCoeff();
      last_increment = nd;
      if (!std::isfinite(nd)) break;
      const double theta = nd / prev;
      if (nd <= s.tol || (it >= 2 && theta >= 1.0 && roundoff_increment(nd) <= floor)) {
        x -= dx_;
        have_lu_ = false;  // the next step factorises at its own predictor
        return StepStatus::kOk;
      }
      if (!damped_update(x, dx_, nd, residual)) break;
      prev = nd;
    }
    x = x0_;
    have_lu_ = false;
    return StepStatus::kNewtonFailed;
  }

  std::int64_t iterations() const { return iterations_; }
  std::int64_t factorisations() const { return factorisations_; }
  /// Whether a factorisation is stored for the next solve to reuse (false after invalidate(), a
  /// failed solve, or a solve that asked for a refresh), and the inverse J^-1 it holds (NX x NX).
  /// Lane steppers read them to run the reused-inverse iteration in SIMD (core/src/lanes/).
  bool has_factorisation() const { return have_lu_; }
  const Mat& inverse() const { return inv_; }

 private:
  /// Broyden's good update (Kelley 1995, "Iterative Methods for Linear and Nonlinear
  /// Equations", §7.2, in Sherman-Morrison form) of inv_ = J^-1 from the last correction dxp_
  /// (the step s = -dxp_, taken with inv_) and dx_ = inv_ F(x + s), the next correction before
  /// the update: with inv_ y = dx_ - dxp_ for y = F(x + s) - F(x),
  ///   inv_ += (s - inv_ y) s^T inv_ / (s^T inv_ y) = dx_ (dxp_^T inv_) / den,
  ///   den = |dxp_|^2 - dxp_ . dx_,
  /// and the corrected dx_ = inv_ F(x + s) is dx_ |dxp_|^2 / den. Skipped where the secant pair
  /// is not information: a previous increment |dxp_|_w = nd_prev at or below 1e-10, where the
  /// residual's round-off (~1e-16) would put relative errors of 1e-6 and more into inv_; or no
  /// contraction along dxp_ (den <= |dxp_|^2 / 2, i.e. dx_ . dxp_ >= |dxp_|^2 / 2). nd_prev = 0
  /// at the first iteration: only dxp_ is recorded.
  void broyden_update(double nd_prev) {
    constexpr double kSecantFloor = 1e-10;
    if (nd_prev > kSecantFloor) {
      const double ss = dxp_.squaredNorm();
      const double den = ss - dxp_.dot(dx_);
      if (den > 0.5 * ss) {
        row_.noalias() = inv_.transpose().lazyProduct(dxp_);
        inv_.noalias() += (dx_ / den) * row_.transpose();
        dx_ *= ss / den;
      }
    }
    dxp_ = dx_;
  }

  /// The damped Newton update of the fallback: x -= lambda dx with the largest lambda in 1, 1/2,
  /// ..., 2^-10 that passes the restricted monotonicity test against nd = |dx|_w, the simplified
  /// correction at the trial point taken with the current factorisation. Leaves F(x) in r_ for
  /// the next iteration; false when no lambda passes (x unchanged).
  template <class Residual>
  bool damped_update(Vec& x, const Vec& dx, double nd, Residual& residual) {
    constexpr double kMinDamping = 1.0 / 1024.0;
    for (double lambda = 1.0; lambda >= kMinDamping; lambda *= 0.5) {
      xt_ = x - lambda * dx;
      residual(xt_, rt_);
      dxt_.noalias() = lu_.solve(rt_);
      const double ndt = dxt_.cwiseAbs().cwiseProduct(w_).maxCoeff();
      if (ndt <= (1.0 - 0.25 * lambda) * nd) {  // false for a non-finite ndt too
        x = xt_;
        r_ = rt_;
        return true;
      }
    }
    return false;
  }

  /// The increment dx_ of weighted norm nd as the round-off test with a fresh Jacobian measures it:
  /// max_i (|dx_i| w_i) u_i, nd itself where every u_i is 1.
  double roundoff_increment(double nd) const {
    if (!has_units_) return nd;
    return dx_.cwiseAbs().cwiseProduct(w_).cwiseProduct(unit_).maxCoeff();
  }

  /// inv_ = jac_^-1 as lu_.compute(jac_) and lu_.inverse() give it (jac_ is overwritten): for the
  /// fixed sizes 2 to 16, Eigen's operations in Eigen's order without its blocked machinery
  /// (eigen_order_inverse.hpp), faster. Not inlined: inlined, its unrolled code slowed solve()'s
  /// iteration loop (gonzalez's step by 15-30 %, measured).
  [[gnu::noinline]] void factorise() {
    if constexpr (NX != Eigen::Dynamic && NX >= 2 && NX <= 16) {
      inverse_in_eigen_order<ScalarElements, NX>(jac_.data(), inv_.data());
    } else {
      lu_.compute(jac_);
      invert_factorisation();
    }
  }

  /// inv_ = lu_.inverse(), which for dynamic sizes allocates three temporaries per call; this is
  /// Eigen's own solve(I) (P I, then the unit-lower and upper triangular solves) in place, so
  /// the same bits without heap memory.
  void invert_factorisation() {
    if constexpr (NX == Eigen::Dynamic) {
      inv_.setZero();
      const auto& perm = lu_.permutationP().indices();
      for (Eigen::Index i = 0; i < inv_.cols(); ++i) inv_(perm(i), i) = 1.0;
      lu_.matrixLU().template triangularView<Eigen::UnitLower>().solveInPlace(inv_);
      lu_.matrixLU().template triangularView<Eigen::Upper>().solveInPlace(inv_);
    } else {
      inv_ = lu_.inverse();
    }
  }

  Vec x0_, r_, dx_, w_;
  Vec xt_, rt_, dxt_;  // trial point, its residual and simplified correction (damping)
  Mat jac_, inv_;
  Eigen::PartialPivLU<Mat> lu_;
  bool have_lu_ = false;
  JacobianUpdate update_;
  std::int64_t iterations_ = 0;
  std::int64_t factorisations_ = 0;
  Vec dxp_, row_;  // Broyden's update: the previous correction; dxp_^T inv_
  Vec unit_;       // set_roundoff_units()
  bool has_units_ = false;
};

/// Forward-difference Jacobian of F at x: jac.col(j) = (F(x + d_j e_j) - F(x)) / d_j with
/// d_j = 1e-7 max(1, |x_j|). `residual(x, r)` writes F(x); r0, r1, xt are workspaces of x's
/// size (nothing is allocated); jac is x.size() x x.size(). The approximate Jacobian of the
/// implicit steps that use SimplifiedNewton.
template <class Vec, class Mat, class Residual>
void forward_difference_jacobian(Residual&& residual, const Vec& x, Vec& r0, Vec& r1, Vec& xt,
                                 Mat& jac) {
  residual(x, r0);
  for (int j = 0; j < static_cast<int>(x.size()); ++j) {
    const double d = 1e-7 * std::max(1.0, std::abs(x(j)));
    xt = x;
    xt(j) += d;
    residual(xt, r1);
    jac.col(j) = (r1 - r0) / d;
  }
}

}  // namespace nhsim

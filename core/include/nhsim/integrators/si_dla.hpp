// `si_dla`: the semi-implicit reversible discrete Lagrange-d'Alembert integrator of
// [McLachlan2006] eq. (4.18), the SI-DLA of
// [Celledoni2019] Fig. 2, in canonical coordinates with p' = -dH/dq + lambda_alpha mu^alpha
// ([Celledoni2019] eq. 6c):
//   q_1/2 = q0 + (h/2) dH/dp(q0, p0)
//   p1    = p0 - (h/2) [dH/dq(q_1/2, p0) + dH/dq(q_1/2, p1)] + h lambda_alpha mu^alpha(q_1/2)
//   q1    = q_1/2 + (h/2) dH/dp(q1, p1)
//   mu(q1) dH/dp(q1, p1) = 0
// For a constant mass matrix, dH/dq = grad V(q) and dH/dp = M^-1 p, so p1 and q1 are affine in
// lambda and only the m constraint equations are solved, by Newton on lambda with the
// Jacobian h mu(q1) M^-1 mu(q_1/2)^T (the d mu/dq term is dropped: simplified Newton; it is
// exactly zero for the chaotic quartic system). For the systems where mu(q) is constant along
// M^-1 mu^T (kSiDlaConstraintAffine below), mu(q1) does not depend on lambda and c(lambda) is
// affine: one linear solve is then exact and the step takes no further iteration.
// Second order, reversible; energy is not preserved (random walk, [Celledoni2019] Fig. 2).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "nhsim/eigen_util.hpp"
#include "nhsim/integrators/descriptors/si_dla.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

template <int N>
class ChaoticQuartic;
class Gearbox;
class KnifeEdge;
class NonholonomicParticle;
class RollingDisk;

/// True when SI-DLA's constraint mu(q1) M^-1 p1(lambda) = 0 is affine in lambda for system S:
/// mu(q) does not change along the constraint forces M^-1 mu^T, so one linear solve is exact.
/// False (simplified Newton on lambda) unless specialised below with the reason.
template <class S>
inline constexpr bool kSiDlaConstraintAffine = false;
/// mu = (1, 0, w) depends on w only; M^-1 mu^T = mu^T has no w-components.
template <int N>
inline constexpr bool kSiDlaConstraintAffine<ChaoticQuartic<N>> = true;
/// mu = (1, sin q3, 0) depends on q3 only; M^-1 mu^T = mu^T has no q3 component.
template <>
inline constexpr bool kSiDlaConstraintAffine<Gearbox> = true;
/// M^-1 mu^T = (sin phi, -(cos phi - eps), 0) has a zero phi row, and mu depends on phi only.
template <>
inline constexpr bool kSiDlaConstraintAffine<KnifeEdge> = true;
/// M^-1 mu^T = (-y, 0, 1) has a zero y row, and mu depends on y only.
template <>
inline constexpr bool kSiDlaConstraintAffine<NonholonomicParticle> = true;
/// mu depends on theta only, and M^-1 mu^T = [[1/m, 0], [0, 1/m], [0, 0],
/// [-r cos(theta) / J_phi, -r sin(theta) / J_phi]] has a zero theta row.
template <>
inline constexpr bool kSiDlaConstraintAffine<RollingDisk> = true;

/// A system over lanes (nhsim/over_lanes.hpp) is affine where its scalar system is.
template <class S>
requires requires { typename S::System; }
inline constexpr bool kSiDlaConstraintAffine<S> = kSiDlaConstraintAffine<typename S::System>;

/// A system whose mu(q) is known only at run time (a user-defined system,
/// nhsim/systems/custom_system.hpp) tells whether the same holds through
/// si_dla_constraint_affine(); the affine solve is then taken where it returns true.
template <class S>
concept SiDlaRuntimeAffine = requires(const S& s) {
  { s.si_dla_constraint_affine() } -> std::convertible_to<bool>;
};

/// A system whose products mu(q) x si_dla sums itself, in index order (ordered_product,
/// nhsim/eigen_util.hpp), so that its steps have the same bits for doubles and over lanes: the
/// user-defined systems, whose M^-1 and mu are known only at run time
/// (SiDlaRuntimeAffine; their lanes: core/src/lanes/lane_block.hpp).
template <class S>
concept SiDlaOrderedProducts = SiDlaRuntimeAffine<S>;

template <class S>
class SiDlaMethod {
 public:
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NC = S::NC;
  using MatC = MatCOf<S>;
  using MatQC = MatQCOf<S>;

  SiDlaMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        q_(sys.nq()),
        p_(sys.nq()),
        qh_(sys.nq()),
        pt_(sys.nq()),
        p1_(sys.nq()),
        q1_(sys.nq()),
        v_(sys.nq()),
        gv_(sys.nq()),
        muh_(sys.nc(), sys.nq()),
        mu1_(sys.nc(), sys.nq()),
        minv_muh_t_(sys.nq(), sys.nc()) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return iterations_; }
  /// The state (q, p), for lanes to gather and scatter (core/src/lanes/method_lanes.hpp).
  auto state() { return std::tie(q_, p_); }
  auto state() const { return std::tie(q_, p_); }

  StepStatus step(double& residual_out) {
    if constexpr (S::NQ == Eigen::Dynamic) {
      return step_impl(residual_out, qh_, pt_, p1_, q1_, v_, gv_, muh_, mu1_, minv_muh_t_);
    } else {
      // Fixed size: work on locals the compiler can keep in registers.
      VecQ qh, pt, p1, q1, v, gv;
      MatCQ muh, mu1;
      MatQC minv_muh_t;
      return step_impl(residual_out, qh, pt, p1, q1, v, gv, muh, mu1, minv_muh_t);
    }
  }

 private:
  /// M^-1 x: x itself for an identity mass matrix (no copy), else evaluated into tmp.
  template <class X>
  const VecQ& minv(const VecQ& q, const X& x, VecQ& tmp) const {
    if constexpr (S::kIdentityMass) {
      (void)q;
      (void)tmp;
      return x;
    } else {
      if constexpr (RuntimeIdentityMass<S> && std::same_as<X, VecQ>) {
        if (sys_.identity_mass()) return x;  // the values a copy would hold
      }
      sys_.inv_mass_times(q, x, tmp);
      return tmp;
    }
  }

  EIGEN_STRONG_INLINE StepStatus step_impl(double& residual_out, VecQ& qh, VecQ& pt, VecQ& p1,
                                           VecQ& q1, VecQ& v, VecQ& gv, MatCQ& muh, MatCQ& mu1,
                                           MatQC& minv_muh_t) {
    qh.noalias() = q_ + (0.5 * h_) * minv(q_, p_, v);
    sys_.grad_potential(qh, gv);
    pt.noalias() = p_ - h_ * gv;
    sys_.constraint(qh, muh);
    if constexpr (!S::kIdentityMass) {
      for (int a = 0; a < sys_.nc(); ++a) {
        auto col = minv_muh_t.col(a);
        sys_.inv_mass_times(qh, muh.row(a).transpose(), col);
      }
    }
    // lambda = 0: p1 = pt, q1 = qh + h/2 M^-1 pt.
    const VecQ& vt = minv(qh, pt, v);
    q1.noalias() = qh + (0.5 * h_) * vt;
    if constexpr (!(S::kIdentityMass && NC == 1)) sys_.constraint(q1, mu1);
    VecC c(sys_.nc());
    MatC jac(sys_.nc(), sys_.nc());
    if constexpr (S::kIdentityMass && NC == 1) {
      // The system's own mu(q) M^-1 v skips the structural zeros of mu.
      c(0) = sys_.constraint_value(q1, vt);
      jac(0, 0) = h_ * sys_.constraint_value(q1, muh.row(0).transpose());
    } else if constexpr (SiDlaOrderedProducts<S>) {
      ordered_product(mu1, vt, c);
      for (int b = 0; b < sys_.nc(); ++b) {
        auto col = jac.col(b);
        ordered_product(mu1, minv_muh_t.col(b), col);
        col *= h_;
      }
    } else if constexpr (S::kIdentityMass) {
      c.noalias() = mu1 * vt;
      jac.noalias() = h_ * (mu1 * muh.transpose());
    } else {
      c.noalias() = mu1 * vt;
      jac.noalias() = h_ * (mu1 * minv_muh_t);
    }
    VecC lam(sys_.nc());  // NC is fixed for every system: no allocation
    lam.setZero();
    auto solve_update = [&] {
      if constexpr (NC == 1 || !std::is_same_v<ScalarOfT<S>, double>) {  // lanes: nc() = 1
        lam(0) -= c(0) / jac(0, 0);
      } else {
        lam -= jac.partialPivLu().solve(c);
      }
    };
    auto affine_step = [&] {
      // mu(q1) does not move with lambda: c(lambda) = c(0) + J lambda is affine and a single
      // linear solve is exact (up to round-off).
      residual_out = 0.0;
      solve_update();
      if constexpr (SiDlaOrderedProducts<S>) {
        VecQ& force = p1;  // mu^T lambda, then M^-1 mu^T lambda
        ordered_product(muh.transpose(), lam, force);
        p_.noalias() = pt + h_ * force;
        ordered_product(minv_muh_t, lam, force);
        q_.noalias() = q1 + (0.5 * h_ * h_) * force;
        return StepStatus::kOk;
      }
      p_.noalias() = pt + h_ * (muh.transpose() * lam);
      if constexpr (S::kIdentityMass) {
        q_.noalias() = q1 + (0.5 * h_ * h_) * (muh.transpose() * lam);
      } else {
        q_.noalias() = q1 + (0.5 * h_ * h_) * (minv_muh_t * lam);
      }
      return StepStatus::kOk;
    };
    if constexpr (kSiDlaConstraintAffine<S>) {
      return affine_step();
    } else {
      if constexpr (SiDlaRuntimeAffine<S>) {
        if (sys_.si_dla_constraint_affine()) return affine_step();
      } else {
        (void)affine_step;
      }
      if constexpr (!std::is_same_v<ScalarOfT<S>, double>) {
        return StepStatus::kNewtonFailed;  // lanes step only affine constraints (lane_block.hpp)
      } else {
        const double scale = std::max(1.0, p_.template lpNorm<Eigen::Infinity>());
        for (int it = 0; it <= ns_.max_iter; ++it) {
          if (it > 0) {
            p1.noalias() = pt + h_ * (muh.transpose() * lam);
            const VecQ& v1 = minv(qh, p1, v);
            q1.noalias() = qh + (0.5 * h_) * v1;
            sys_.constraint(q1, mu1);
            if constexpr (SiDlaOrderedProducts<S>) {
              ordered_product(mu1, v1, c);
            } else {
              c.noalias() = mu1 * v1;
            }
          } else {
            p1 = pt;
          }
          const double cn = c.template lpNorm<Eigen::Infinity>();
          residual_out = cn;
          if (cn <= ns_.tol * scale) {
            q_ = q1;
            p_ = p1;
            return StepStatus::kOk;
          }
          if (it == ns_.max_iter) break;
          ++iterations_;
          solve_update();  // simplified Newton: the Jacobian of lambda = 0 is kept
        }
        return StepStatus::kNewtonFailed;
      }
    }
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  alignas(64) VecQ q_;  // state on its own cache lines: no split loads in the step loop
  alignas(64) VecQ p_;
  VecQ qh_, pt_, p1_, q1_, v_, gv_;
  MatCQ muh_, mu1_;
  MatQC minv_muh_t_;
  std::int64_t iterations_ = 0;
};

}  // namespace nhsim

// `si_dla`: the semi-implicit reversible discrete Lagrange-d'Alembert integrator of
// McLachlan & Perlmutter 2006 (J. Nonlinear Sci. 16:283-328) eq. (4.18), the SI-DLA of seed 001
// Fig. 2, in canonical coordinates with p' = -dH/dq + lambda_alpha mu^alpha (seed 001 eq. 6c):
//   q_1/2 = q0 + (h/2) dH/dp(q0, p0)
//   p1    = p0 - (h/2) [dH/dq(q_1/2, p0) + dH/dq(q_1/2, p1)] + h lambda_alpha mu^alpha(q_1/2)
//   q1    = q_1/2 + (h/2) dH/dp(q1, p1)
//   mu(q1) dH/dp(q1, p1) = 0
// For a constant mass matrix, dH/dq = grad V(q) and dH/dp = M^-1 p, so p1 and q1 are affine in
// lambda and only the m constraint equations are solved, by Newton on lambda with the
// Jacobian h mu(q1) M^-1 mu(q_1/2)^T (the d mu/dq term is dropped: simplified Newton; it is
// exactly zero for the chaotic quartic system, where the iteration ends after one update).
// Second order, reversible; energy is not preserved (random walk, seed 001 Fig. 2).
#pragma once

#include <algorithm>
#include <cstdint>

#include "nhsim/stepper.hpp"

namespace nhsim {

template <class S>
class SiDlaMethod {
 public:
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NC = S::NC;
  using MatC = Eigen::Matrix<double, NC, NC>;
  using MatQC = Eigen::Matrix<double, S::NQ, NC>;

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
        minv_muh_t_(sys.nq(), sys.nc()),
        lam_(sys.nc()),
        c_(sys.nc()),
        jac_(sys.nc(), sys.nc()) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    lam_.setZero();
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return iterations_; }

  StepStatus step(double& residual_out) {
    sys_.inv_mass_times(q_, p_, v_);
    qh_ = q_ + (0.5 * h_) * v_;
    sys_.grad_potential(qh_, gv_);
    pt_ = p_ - h_ * gv_;
    sys_.constraint(qh_, muh_);
    for (int a = 0; a < sys_.nc(); ++a) {
      auto col = minv_muh_t_.col(a);
      sys_.inv_mass_times(qh_, muh_.row(a).transpose(), col);
    }
    lam_.setZero();
    for (int it = 0; it <= ns_.max_iter; ++it) {
      p1_ = pt_;
      p1_.noalias() += h_ * (muh_.transpose() * lam_);
      sys_.inv_mass_times(qh_, p1_, v_);
      q1_ = qh_ + (0.5 * h_) * v_;
      sys_.constraint(q1_, mu1_);
      c_.noalias() = mu1_ * v_;
      const double cn = c_.template lpNorm<Eigen::Infinity>();
      residual_out = cn;
      if (cn <= ns_.tol * std::max(1.0, p1_.template lpNorm<Eigen::Infinity>())) {
        q_ = q1_;
        p_ = p1_;
        return StepStatus::kOk;
      }
      if (it == ns_.max_iter) break;
      ++iterations_;
      jac_.noalias() = h_ * (mu1_ * minv_muh_t_);
      if constexpr (NC == 1) {
        lam_(0) -= c_(0) / jac_(0, 0);
      } else {
        lam_ -= jac_.partialPivLu().solve(c_);
      }
    }
    return StepStatus::kNewtonFailed;
  }

 private:
  const S& sys_;
  double h_;
  NewtonSettings ns_;
  VecQ q_, p_, qh_, pt_, p1_, q1_, v_, gv_;
  MatCQ muh_, mu1_;
  MatQC minv_muh_t_;
  VecC lam_, c_;
  MatC jac_;
  std::int64_t iterations_ = 0;
};

struct SiDlaIntegrator {
  static constexpr const char* kDescription =
      "Semi-implicit reversible discrete Lagrange-d'Alembert (McLachlan & Perlmutter 2006 eq. 4.18) in canonical coordinates";
  static constexpr const char* kSource = "seed 001 Fig. 2; McLachlan & Perlmutter 2006 eq. (4.18)";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = false;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "si_dla";
  template <class S>
  static constexpr bool kApplies = S::kConstantMass;
  static constexpr const char* kRequirement = "a constant mass matrix";
  template <class S>
  using Method = SiDlaMethod<S>;
};

}  // namespace nhsim

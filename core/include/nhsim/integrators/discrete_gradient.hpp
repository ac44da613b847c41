// The discrete gradient method on the reduced almost-Poisson system, [Celledoni2019] eq. (14):
//     (zeta' - zeta) / h = Pi((zeta + zeta') / 2) dbarH(zeta, zeta'),
// with a discrete gradient dbarH (policy DG: Gonzalez eq. (12), AVF eq. (11), ...).
// Preserves the reduced Hamiltonian H exactly (up to the Newton tolerance and round-off) and,
// since Pi's q-rows are X(q_bar), the constraints exactly ([Celledoni2019] Remark 3.3).
//
// The implicit equation is solved by SimplifiedNewton with the Jacobian
// I - (h/2) Df(zeta_bar) (f = Pi grad H, forward differences), reused across steps.
// Predictor: cubic extrapolation of the previous increments (explicit midpoint for the first
// three steps after a reset).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>

#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// Per-trajectory state of eq. (14) for system S (which must have a reduced form) and
/// discrete gradient DG. DG provides
///   template <class S> struct Workspace { explicit Workspace(const S&); ... };
///   template <class S, class W> static void eval(const S&, W&, const VecZ& zeta,
///       const VecZ& zeta1, double H0, const VecZ& zeta_bar, VecZ& out);
template <class S, class DG>
class DiscreteGradientMethod {
 public:
  using VecQ = typename S::VecQ;
  using VecZ = typename S::VecZ;
  using MatZ = typename S::MatZ;
  static constexpr int NQ = S::NQ;
  static constexpr int NR = S::NR;

  DiscreteGradientMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        newton_(sys.nz()),
        z_(sys.nz()),
        z1_(sys.nz()),
        zbar_(sys.nz()),
        dg_(sys.nz()),
        f_(sys.nz()),
        g_(sys.nz()),
        tmp_(sys.nz()),
        d1_(sys.nz()),
        d2_(sys.nz()),
        d3_(sys.nz()),
        ws_(sys) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    zeta_from_canonical(sys_, q, p, z_);
    h0_ = sys_.reduced_hamiltonian(z_);
    newton_.invalidate();
    history_ = 0;
  }

  void canonical(VecQ& q, VecQ& p) const { canonical_from_zeta(sys_, z_, q, p); }

  bool state_finite() const { return all_finite(z_); }
  std::int64_t newton_iterations() const { return newton_.iterations(); }
  const VecZ& zeta() const { return z_; }
  const SimplifiedNewton<S::NZ>& newton() const { return newton_; }
  SimplifiedNewton<S::NZ>& newton() { return newton_; }

  /// What a step starts from besides zeta: the last three increments (newest first), how many of
  /// them are valid (the predictor extrapolates once there are 3) and H(zeta). Lane steppers
  /// (core/src/lanes/) step this method in SIMD lanes and hand single steps to a scalar copy:
  /// they read this after its step and restore it before one.
  struct History {
    VecZ d1, d2, d3;
    int count = 0;
    double h0 = 0.0;
  };
  History history() const { return {d1_, d2_, d3_, history_, h0_}; }
  void restore(const VecZ& zeta, const History& h) {
    z_ = zeta;
    d1_ = h.d1;
    d2_ = h.d2;
    d3_ = h.d3;
    history_ = h.count;
    h0_ = h.h0;
  }

  StepStatus step(double& residual_out) {
    // Predictor: cubic extrapolation of the last three increments once they exist (free,
    // O(h^4)); explicit midpoint before that (two field evaluations, O(h^3)).
    if (history_ >= 3) {
      z1_ = z_ + 3.0 * (d1_ - d2_) + d3_;
    } else {
      sys_.reduced_rhs(z_, g_, f_);
      tmp_ = z_ + (0.5 * h_) * f_;
      sys_.reduced_rhs(tmp_, g_, f_);
      z1_ = z_ + h_ * f_;
    }

    auto residual = [this](const VecZ& x, VecZ& r) {
      zbar_ = 0.5 * (z_ + x);
      DG::eval(sys_, ws_, z_, x, h0_, zbar_, dg_);
      sys_.apply_pi(zbar_, dg_, r);
      r = x - z_ - h_ * r;
    };
    auto jacobian = [this](const VecZ& x, MatZ& jac) {
      // J = I - (h/2) Df(zeta_bar), Df by forward differences.
      zbar_ = 0.5 * (z_ + x);
      sys_.reduced_rhs(zbar_, g_, f_);
      const int nz = sys_.nz();
      for (int j = 0; j < nz; ++j) {
        const double d = 1e-7 * std::max(1.0, std::abs(zbar_(j)));
        tmp_ = zbar_;
        tmp_(j) += d;
        sys_.reduced_rhs(tmp_, g_, dg_);
        jac.col(j) = (-0.5 * h_ / d) * (dg_ - f_);
        jac(j, j) += 1.0;
      }
    };
    const StepStatus st = newton_.solve(z1_, residual, jacobian, ns_, residual_out);
    if (st != StepStatus::kOk) return st;
    d3_.swap(d2_);
    d2_.swap(d1_);
    d1_ = z1_ - z_;
    if (history_ < 3) ++history_;
    z_ = z1_;
    h0_ = sys_.reduced_hamiltonian(z_);
    return StepStatus::kOk;
  }

 private:
  const S& sys_;
  double h_;
  NewtonSettings ns_;
  SimplifiedNewton<S::NZ> newton_;
  VecZ z_, z1_, zbar_, dg_, f_, g_, tmp_;
  VecZ d1_, d2_, d3_;  // last three increments, newest first
  int history_ = 0;    // how many of d1_, d2_, d3_ are valid
  double h0_ = 0.0;
  typename DG::template Workspace<S> ws_;
};

}  // namespace nhsim

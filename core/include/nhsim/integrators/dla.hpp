// `dla`: the discrete Lagrange-d'Alembert integrator of [Cortes2001], the DLA that
// [AnahorySimoes2022] compares MLA with in Figs. 2, 3, 5, 6
// ([AnahorySimoes2022] Remark 5.2: principle (31) with F^+ = F^- = 0). Generic over systems with a
// canonical form and a constant mass matrix; also meant for the DLA comparisons of [Gebhardt2020]
// (Tables 7-9).
//
// Discretisation (exactly the one of [AnahorySimoes2022] Examples 3-4, which are the midpoint
// rule):
//   L_d(q0, q1) = h L(qbar, (q1 - q0) / h),  L(q, v) = 1/2 v^T M v - V(q),  qbar = (q0 + q1) / 2,
//   discrete constraint  omega(q0, q1) = mu(qbar) (q1 - q0) / h = 0.
// Particle: L_d = |q1 - q0|^2 / (2h) and omega = 0 is eq. (43); knife edge: L_d = |q1 - q0|^2 /
// (2h) + h (x0 + x1) / 4 and omega = 0 is the M^d_h of Example 4 (with eps for Example 5).
// Equations ([Cortes2001]; [AnahorySimoes2022] eq. (32) without forces):
//   D2 L_d(q_{k-1}, q_k) + D1 L_d(q_k, q_{k+1}) = lambda_k mu(q_k),  omega(q_k, q_{k+1}) = 0,
// with, for constant M,
//   -D1 L_d(q0, q1) = M (q1 - q0) / h + (h/2) grad V(qbar),
//    D2 L_d(q0, q1) = M (q1 - q0) / h - (h/2) grad V(qbar).
// Note the multiplier acts at the node q_k (mu(q_k)); `i_dla` instead puts it at the midpoint
// and splits it between both ends (a different, one-step method).
//
// One-step canonical form, first step from (q0, p0) and the reported momentum
// p_k = P_{q_k} D2 L_d(q_{k-1}, q_k): see discrete_momentum_matching.hpp. The constraint holds
// exactly in canonical coordinates (p_k on M D), energy is not preserved.
// Second order (midpoint discretisation).
//
// Loads (systems with kHasLoads, [Gebhardt2020] §6.4): the forced discrete Lagrange-d'Alembert
// principle with midpoint discrete forces F_d^+- = (h/2) f(qbar, t_{k+1/2}) (f = applied_force(),
// which includes -grad V), i.e. -D1 L_d - F_d^- = M dq / h - (h/2) f and D2 L_d + F_d^+ = M dq / h
// + (h/2) f; the step counter of MomentumMatchingMethod supplies t_{k+1/2} = (k + 1/2) h. For
// V-only systems this is the formula above, unchanged. [Gebhardt2020]'s Appendix B (the DLA
// formulas of §6.4) is not in the seed text, so this is checked against [Cortes2001] only.
#pragma once

#include <Eigen/Dense>

#include "nhsim/controls.hpp"
#include "nhsim/integrators/descriptors/dla.hpp"
#include "nhsim/integrators/discrete_momentum_matching.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Midpoint L_d and midpoint discrete constraint of the canonical system S (constant M).
template <class S>
class DlaDiscretisation {
 public:
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatQ = CapacityMatrix<S::NQ, S::NQ, capacity_nq<S>(), capacity_nq<S>()>;

  explicit DlaDiscretisation(const S& sys)
      : m_(sys.mass_matrix_dyn(VecQ::Zero(sys.nq()))),
        gv_(sys.nq()),
        qbar_(sys.nq()),
        dq_(sys.nq()),
        mu_(sys.nc(), sys.nq()) {}

  /// -D1 L_d(q0, q1) = M dq / h + (h/2) grad V(qbar).
  void legendre_minus(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const {
    eval(sys, q0, q1, h, 1.0, out);
  }
  /// D2 L_d(q0, q1) = M dq / h - (h/2) grad V(qbar).
  void legendre_plus(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const {
    eval(sys, q0, q1, h, -1.0, out);
  }
  /// Time t_{k+1/2} of the loads in the next legendre_minus / legendre_plus (loaded systems).
  void set_midpoint_time(double t) { tmid_ = t; }

  /// omega(q0, q1) = mu(qbar) (q1 - q0) / h.
  void discrete_constraint(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecC& w) const {
    qbar_ = 0.5 * (q0 + q1);
    sys.constraint(qbar_, mu_);
    dq_ = q1 - q0;
    w.noalias() = mu_ * dq_;
    w /= h;
  }

 private:
  void eval(const S& sys, const VecQ& q0, const VecQ& q1, double h, double sign, VecQ& out) const {
    qbar_ = 0.5 * (q0 + q1);
    if constexpr (has_loads<S>) {
      applied_force(sys, qbar_, tmid_, gv_);  // f = -grad V + loads: out = M dq/h - sign h/2 f
      dq_ = q1 - q0;
      out.noalias() = m_ * dq_;
      out = out / h - (sign * 0.5 * h) * gv_;
      return;
    }
    sys.grad_potential(qbar_, gv_);
    if constexpr (S::kIdentityMass) {
      out = (q1 - q0) / h + (sign * 0.5 * h) * gv_;
    } else {
      dq_ = q1 - q0;
      out.noalias() = m_ * dq_;
      out = out / h + (sign * 0.5 * h) * gv_;
    }
  }

  MatQ m_;  // the constant mass matrix
  double tmid_ = 0.0;
  mutable VecQ gv_, qbar_, dq_;
  mutable typename S::MatCQ mu_;
};

}  // namespace nhsim

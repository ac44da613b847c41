// The shared engine of the two-step discrete nonholonomic integrators `dla` and `mla`: both are
// "momentum matching on D*" schemes ([AnahorySimoes2022] eq. (32), (41)-(42); [Cortes2001])
//   i_D*( F^+(q_{k-1}, q_k) ) = i_D*( F^-(q_k, q_{k+1}) ),   omega(q_k, q_{k+1}) = 0,
// with discrete Legendre transforms F^-(q0, q1) in T*_{q0}Q, F^+(q0, q1) in T*_{q1}Q and a
// discrete constraint omega: Q x Q -> R^m, all supplied by a discretisation policy D:
//   DLA ([Cortes2001]): F^- = -D1 L_d, F^+ = D2 L_d, no forces ([AnahorySimoes2022]
//   Remark 5.2); MLA ([AnahorySimoes2022] eq. (41)): F^- = F^{f-} L_d = -D1 L_d - F_d^-, F^+ =
//   F^{f+} L_d = D2 L_d + F_d^+.
// Since ker i_D* = D^o (eq. (38)), eq. (42) is eq. (41): D2 L_d(q_{k-1}, q_k) + D1 L_d(q_k,
// q_{k+1}) + F^+ + F^- in D^o_{q_k}.
//
// One-step form on canonical states (the Method<S> interface; documented choice):
//   * the state at step k is (q_k, p_k) with p_k the unique covector in M(q_k) D_{q_k} (the
//     constraint holds: mu(q_k) M^-1 p_k = 0) with i_D* p_k = i_D* F^+(q_{k-1}, q_k), i.e.
//       p_k = P_{q_k} F^+(q_{k-1}, q_k),  P_q p = p - mu^T (mu M^-1 mu^T)^-1 mu M^-1 p  (at q),
//     the discrete Legendre transform projected onto D* and lifted back to T*Q; H(q_k, p_k) is
//     the paper's H|D* evaluated on the discrete momentum (Figs. 2, 5, 6);
//   * a step (q_k, p_k) -> (q_{k+1}, p_{k+1}) solves, for q_{k+1} and lambda in R^m,
//       F^-(q_k, q_{k+1}) = p_k + mu(q_k)^T lambda,   omega(q_k, q_{k+1}) = 0        (n + m)
//     (the first line is i_D* F^-(q_k, q_{k+1}) = i_D* p_k with the D^o part free), then
//     p_{k+1} = P_{q_{k+1}} F^+(q_k, q_{k+1}). This reproduces the two-step recursion
//     (q_{k-1}, q_k) -> q_{k+1} exactly, and the first step from a canonical initial state
//     (q0, p0) is the discrete Legendre transform: q1 solves i_D* F^-(q0, q1) = i_D* p0 on
//     omega(q0, q1) = 0. So a two-step start (q0, q1) of the paper corresponds to the canonical
//     state (q0, P_{q0} F^-(q0, q1)) (see initial_momentum()).
//   * q_{k-1} is kept in the method state (for the predictor q_{k+1} ~ 2 q_k - q_{k-1}).
//
// Newton: unknowns x = (q_{k+1}, lambda), SimplifiedNewton with a forward-difference Jacobian
// reused across steps (as in i_dla.hpp). Allocation-free per step for fixed-size systems.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nhsim/integrators/canonical_util.hpp"
#include "nhsim/integrators/newton_method.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// P_q p = p - mu^T (mu M^-1 mu^T)^-1 mu M^-1 p: the covector in M(q) D_q with the same
/// i_D*-projection as p. Workspace allocated at construction; apply() allocates nothing.
template <class S>
class DistributionProjector {
 public:
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NC = S::NC;
  using MatC = MatCOf<S>;
  using MatQC = MatQCOf<S>;

  explicit DistributionProjector(const S& sys)
      : mu_(sys.nc(), sys.nq()),
        minv_mut_(sys.nq(), sys.nc()),
        col_(sys.nq()),
        v_(sys.nq()),
        a_(sys.nc(), sys.nc()),
        c_(sys.nc()),
        nu_(sys.nc()) {}

  /// out = P_q p (q, p, out of length nq; out may not alias p).
  void apply(const S& sys, const VecQ& q, const VecQ& p, VecQ& out) {
    sys.constraint(q, mu_);
    for (int a = 0; a < sys.nc(); ++a) {
      sys.inv_mass_times(q, mu_.row(a).transpose(), col_);
      minv_mut_.col(a) = col_;
    }
    sys.inv_mass_times(q, p, v_);
    a_.noalias() = mu_ * minv_mut_;
    c_.noalias() = mu_ * v_;
    out = p;
    if constexpr (NC == 1) {
      out -= (c_(0) / a_(0, 0)) * mu_.row(0).transpose();
    } else {
      nu_ = a_.partialPivLu().solve(c_);
      out.noalias() -= mu_.transpose() * nu_;
    }
  }

 private:
  MatCQ mu_;
  MatQC minv_mut_;
  VecQ col_, v_;
  MatC a_;
  VecC c_, nu_;
};

/// P_q p (see DistributionProjector); allocates its workspace: not for step loops.
template <class S>
void project_onto_distribution(const S& sys, const typename S::VecQ& q, const typename S::VecQ& p,
                               typename S::VecQ& out) {
  DistributionProjector<S> proj(sys);
  proj.apply(sys, q, p, out);
}

/// Per-trajectory state of a momentum-matching scheme with discretisation D on system S.
/// D is constructed from the system (explicit D(const S&), may allocate) and provides
/// (allocation-free; q0, q1, out of length nq, w of length nc):
///   void legendre_minus(const S&, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const;
///   void legendre_plus(const S&, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const;
///   void discrete_constraint(const S&, const VecQ& q0, const VecQ& q1, double h, VecC& w) const;
template <class S, class D>
class MomentumMatchingMethod : public NewtonMethodBase<MomentumMatchingMethod<S, D>> {
 public:
  friend NewtonMethodBase<MomentumMatchingMethod>;

  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int NX = kStackedSize<NQ, NC, 1>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;

  /// h: step [s] (> 0); ns: Newton tolerance and iteration cap.
  MomentumMatchingMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        disc_(sys),
        proj_(sys),
        nq_(sys.nq()),
        nc_(sys.nc()),
        newton_(sys.nq() + sys.nc()),
        q_(nq_),
        p_(nq_),
        qprev_(nq_),
        q1_(nq_),
        f_(nq_),
        v_(nq_),
        mu0_(nc_, nq_),
        w_(nc_),
        x_(nq_ + nc_),
        lam_(nc_),
        r0_(nq_ + nc_),
        r1_(nq_ + nc_),
        xt_(nq_ + nc_) {
    lam_.setZero();
  }

  /// Sets (q_k, p_k); p is assumed on M D_q (it is projected, so a D^o part is ignored).
  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    proj_.apply(sys_, q_, p, p_);
    have_prev_ = false;
    k_ = 0;
    lam_.setZero();
    newton_.invalidate();
  }
  /// q_{k-1} (valid after the first step).
  const VecQ& previous_q() const { return qprev_; }

  /// What a step starts from besides (q_k, p_k): q_{k-1} (valid once a step was taken), the last
  /// multiplier lambda (the predictor's; 0 after set_canonical) and the step count k. Lane
  /// steppers (core/src/lanes/) step this method in SIMD lanes and hand single steps to a scalar
  /// copy: they read this after its step and restore it before one.
  struct History {
    VecQ q_previous;
    VecC lambda;
    bool have_previous = false;
    std::int64_t k = 0;
  };
  History history() const { return {qprev_, lam_, have_prev_, k_}; }
  /// (q, p) as they are (p already on M D_q: not projected again) and the rest from `h`.
  void restore(const VecQ& q, const VecQ& p, const History& h) {
    q_ = q;
    p_ = p;
    qprev_ = h.q_previous;
    lam_ = h.lambda;
    have_prev_ = h.have_previous;
    k_ = h.k;
  }

  /// The canonical state (q0, p0) whose first step lands on q1: p0 = P_{q0} F^-(q0, q1)
  /// (the discrete Legendre transform of the two-step start (q0, q1), projected onto D*).
  static VecQ initial_momentum(const S& sys, const VecQ& q0, const VecQ& q1, double h) {
    VecQ f(sys.nq()), p(sys.nq());
    D disc(sys);
    if constexpr (requires { disc.set_midpoint_time(0.0); }) disc.set_midpoint_time(0.5 * h);
    disc.legendre_minus(sys, q0, q1, h, f);
    project_onto_distribution(sys, q0, f, p);
    return p;
  }

  StepStatus step(double& residual_out) {
    if constexpr (requires { disc_.set_midpoint_time(0.0); }) {
      disc_.set_midpoint_time((static_cast<double>(k_) + 0.5) * h_);  // time-dependent loads
    }
    sys_.constraint(q_, mu0_);
    if (have_prev_) {
      segment_n<NQ>(x_, 0, nq_) = 2.0 * q_ - qprev_;
    } else {
      sys_.inv_mass_times(q_, p_, v_);
      segment_n<NQ>(x_, 0, nq_) = q_ + h_ * v_;
    }
    segment_n<NC>(x_, nq_, nc_) = lam_;
    const auto residual = [this](const VecX& x, VecX& r) { eval_residual(x, r); };
    const StepStatus st = this->solve(x_, residual, residual, residual_out);
    if (st != StepStatus::kOk) return st;
    q1_ = segment_n<NQ>(x_, 0, nq_);
    lam_ = segment_n<NC>(x_, nq_, nc_);
    disc_.legendre_plus(sys_, q_, q1_, h_, f_);
    qprev_ = q_;
    q_ = q1_;
    proj_.apply(sys_, q_, f_, p_);
    have_prev_ = true;
    ++k_;
    return StepStatus::kOk;
  }

 private:
  /// r = (F^-(q_k, q1) - p_k - mu(q_k)^T lambda, omega(q_k, q1)), x = (q1, lambda).
  void eval_residual(const VecX& x, VecX& r) {
    q1_ = segment_n<NQ>(x, 0, nq_);
    disc_.legendre_minus(sys_, q_, q1_, h_, f_);
    f_ -= p_;
    f_.noalias() -= mu0_.transpose() * segment_n<NC>(x, nq_, nc_);
    segment_n<NQ>(r, 0, nq_) = f_;
    disc_.discrete_constraint(sys_, q_, q1_, h_, w_);
    segment_n<NC>(r, nq_, nc_) = w_;
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  D disc_;
  DistributionProjector<S> proj_;
  int nq_, nc_;
  SimplifiedNewton<NX> newton_;
  VecQ q_, p_, qprev_, q1_, f_, v_;
  MatCQ mu0_;
  VecC w_;
  VecX x_;
  VecC lam_;
  VecX r0_, r1_, xt_;
  bool have_prev_ = false;
  std::int64_t k_ = 0;  // steps since set_canonical: t_k = k h
};

}  // namespace nhsim

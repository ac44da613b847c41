// `gonzalez_r` and `gonzalez_r_fd`: the discrete gradient method eq. (14) applied to the reduced
// equations (9) WITHOUT an analytic reduced form, [Celledoni2019] §3.3 (GONZALEZ-R) and Remark 3.5.
// Only canonical data are used: M(q), V(q), mu(q).
//
// State: canonical (q, p). One step from (q, p):
//   (i)   signs s of the Householder reflections chosen at q (s_k = sign of the pivot) and
//         frozen for the step; X(.) = the QR frame of mu(.)^T with those signs (qr_frame.hpp);
//         rho = X(q)^T p, eq. (16b);
//   (ii)  zeta = (q, rho) -> zeta' by eq. (14) with the Gonzalez discrete gradient eq. (12) of
//         H(q, rho) = 1/2 rho^T g^-1(q) rho + V(q), g = X^T M X, and Pi = Pi(zeta_bar), eq. (8):
//           Pi = [[0, X], [-X^T, -C rho]],  (-C rho)_ab = (dX_a^j/dq^i X_b^i - dX_b^j/dq^i X_a^i)
//           p_j
//         (eq. 17), grad H from eq. (18a-b):
//           dH/dq^i = -p^T (dX/dq^i) u - 1/2 v^T (dM/dq^i) v + dV/dq^i,  dH/drho = u,
//         u = g^-1 rho, v = X u = M^-1 p, p = M X u (eq. 16a). The middle term is eq. (18a)'s
//         1/2 p^T d(M^-1)/dq^i p rewritten with d(M^-1) = -M^-1 dM M^-1;
//   (iii) p' = M(q') X(q') g^-1(q') rho', eq. (16a).
// zeta' is kept: when the signs chosen at q' for the next step equal this step's, rho' is
// already rho in that frame and step (i) is skipped (the p -> rho -> p round trip would add a
// random walk of round-off to the energy, ~2e-13 relative over 10^4 steps on chaotic_quartic).
// Energy: H(zeta') - H(zeta) = 0 for any skew Pi (Newton tolerance and round-off), and the
// reduced H equals the canonical H on the constraint set for any frame. Constraint:
// mu(q') M^-1 p' = mu(q') X(q') u' = 0 by construction (round-off). Second order.
//
// Derivatives (documented choices):
//   * gonzalez_r: p^T dX/dq^i by Algorithm 1 in adjoint form (qr_frame.hpp). It needs dmu/dq:
//     from the system's constraint_dot (column i is dmu/dt along q' = e_i) where it has one,
//     else by the complex step
//     Im mu(q + i 1e-20 e_i) / 1e-20 (exact to round-off) when S::constraint accepts a complex q
//     (all current systems), else by fourth-order central differences of mu with increment
//     1e-3 max(1, |q_i|). Plain second-order differences are too noisy (~eps / increment): the
//     noise enters the residual and stalls the Newton iteration (seen on the rolling disk).
//   * gonzalez_r_fd: p^T dX/dq^i by central differences of the frame (same frozen signs) with
//     the increment |h| (the time step), as in Remark 3.5: O(h^2), so the method keeps order 2.
//   * dM/dq^i: zero for kConstantMass systems; else 1/2 v^T (dM/dq^i) v from the system's
//     kinetic_gradient where it has one (user-defined systems: symbolic), else fourth-order
//     central differences of M (increment 1e-3 max(1, |q_i|); error ~ 1e-12 relative).
// None of these approximations affects energy or constraint preservation (Pi stays skew, the
// frame stays exact), only the O(h^2) local error constant.
//
// Evaluation: dX/dq enters grad H and -C rho only through
// the vectors p^T dX/dq^i, so those are what the frame computes, and X is applied as the product
// of its Householder reflections, never formed. g = X^T M X is the trailing block of Q^T M Q;
// for M = I it is the identity (X^T X = I), so u = rho and H(z) = 1/2 |rho|^2 + V(q) need no
// frame at all, and p^T (dX/dq^i) u = u^T X^T (dX/dq^i) u = 0 (X^T dX/dq^i is skew), so
// grad_q H = grad V. With one constraint row (one_row_), -C rho is applied to a vector as
// t (X v) - X^T (t^T v), t = p^T dX, both products from the derivative of the single reflector
// (HouseholderFrame::pullback_along, pullback_transpose); t and -C rho are never formed. dmu/dq
// comes from the system's constraint_dot where it has one. Sizes are the system's (fixed, or
// its capacity): a step allocates nothing.
//
// Newton: unknowns zeta' (length 2 nq - nc), SimplifiedNewton with J = I - (h/2) Df(zeta_bar),
// f = Pi grad H, by forward differences. Predictor: the cubic through the last four points
// zeta_{n-3} .. zeta_n (error O(h^4), no evaluation of f) while they are coordinates in one frame,
// i.e. no sign of the frame changed; after a change (rho flips sign with the frame) and at the
// start, explicit midpoint on f (two evaluations).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "nhsim/complex_step.hpp"
#include "nhsim/integrators/descriptors/gonzalez_r.hpp"
#include "nhsim/integrators/gonzalez_quotient.hpp"
#include "nhsim/integrators/qr_frame.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// How dX/dq is obtained.
enum class FrameDerivative { kAlgorithm1, kCentralDifference };

/// gonzalez_r (FrameDerivative::kAlgorithm1) and gonzalez_r_fd (kCentralDifference) on system S.
/// The frame derivative is chosen at run time, so that the two methods share one instantiation
/// per system (both descriptors are in descriptors/gonzalez_r.hpp, hence in one pair unit).
template <class S>
class GonzalezRMethod {
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int MQ = capacity_nq<S>();
  static constexpr bool kFixed = NQ != Eigen::Dynamic && NC != Eigen::Dynamic;
  static constexpr int NR = kFixed ? NQ - NC : Eigen::Dynamic;  // rho: nq - nc
  static constexpr int NZ = kFixed ? NQ + NR : Eigen::Dynamic;  // zeta = (q, rho)
  static constexpr int MR = kFixed ? NR : MQ;                   // capacity of rho
  // The one-row path (one_row_) compiles where nc can be 1.
  static constexpr bool kOneRowPossible = NC == 1 || NC == Eigen::Dynamic;
  // dM/dq^i by differences of M (dm_): a varying M without kinetic_gradient.
  static constexpr bool kMassDifferences = !S::kConstantMass && !KineticGradient<S>;

 public:
  using Frame = HouseholderFrame<NQ, NC, MQ, capacity_nc<S>()>;
  using VecQ = typename S::VecQ;
  using VecR = CapacityMatrix<NR, 1, MR, 1>;
  using VecZ = typename SimplifiedNewton<NZ>::Vec;
  using MatZ = typename SimplifiedNewton<NZ>::Mat;
  using MatQ = typename Frame::MatQ;
  using MatQC = typename Frame::MatQC;
  using MatR = CapacityMatrix<NR, NR, MR, MR>;
  using MatRQ = CapacityMatrix<NR, NQ, MR, MQ>;

  GonzalezRMethod(const S& sys, double h, NewtonSettings ns,
                  FrameDerivative derivative = FrameDerivative::kAlgorithm1)
      : sys_(sys),
        h_(h),
        ns_(ns),
        derivative_(derivative),
        n_(sys.nq()),
        nc_(sys.nc()),
        m_(sys.nq() - sys.nc()),
        nz_(2 * sys.nq() - sys.nc()),
        identity_mass_(identity_mass(sys)),
        one_row_(kOneRowPossible && derivative == FrameDerivative::kAlgorithm1 && sys.nc() == 1),
        frame_(sys.nq(), sys.nc()),
        newton_(2 * sys.nq() - sys.nc(), JacobianUpdate::kBroyden),
        q_(n_),
        p_(n_),
        signs_(nc_),
        z_(nz_),
        z1_(nz_),
        zbar_(nz_),
        tmp_(nz_),
        f_(nz_),
        f1_(nz_),
        dg_(nz_),
        d_(nz_),
        zh_{VecZ(nz_), VecZ(nz_), VecZ(nz_)},
        qa_(n_),
        va_(n_),
        pa_(n_),
        dv_(n_),
        bq_(n_),
        tn_(n_),
        ua_(m_),
        sv_(m_),
        qc_(n_),
        muc_(nc_, n_),
        mu_(nc_, n_),
        a_(n_, nc_),
        a1_(n_, nc_),
        mass_(sys.mass_matrix_dyn(VecQ::Zero(sys.nq()))),
        mp_(n_, n_),
        bqq_(n_, n_),
        gm_(m_, m_),
        skew_(m_, m_),
        t_(m_, n_),
        bt_(m_, n_),
        da_(static_cast<std::size_t>(nc_), typename Frame::Jacobian(n_, n_)),
        dm_(kMassDifferences ? static_cast<std::size_t>(n_) : 0, MatQ(n_, n_)),
        llt_(m_) {}

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    have_reduced_ = false;
    newton_.invalidate();
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return newton_.iterations(); }

  StepStatus step(double& residual_out) {
    // (i) frozen signs at q, rho = X^T p. When the signs are those of the previous step's end
    // point, the frame at q is the one rho' was computed in: keep zeta = (q, rho') and skip the
    // p -> rho round trip (whose round-off would otherwise random-walk into the energy).
    if (!have_reduced_) constraint_t(q_, a_);  // else the previous step left mu(q)^T in a_
    frame_.choose_signs(a_);
    if (!have_reduced_ || frame_.signs() != signs_) {
      history_ = 0;  // earlier points are coordinates in another frame
      signs_ = frame_.signs();
      frame_.compute(a_);
      head_q(z_) = q_;
      bq_ = p_;
      frame_.apply_qt(bq_);
      tail_r(z_) = tail_r(bq_);
    }
    frame_.set_signs(signs_);
    const double h0 = hamiltonian(z_);

    if (history_ == kHistory) {
      z1_ = 4.0 * z_ - 6.0 * zh_[0] + 4.0 * zh_[1] - zh_[2];  // cubic extrapolation
    } else {
      field(z_, f_);  // explicit midpoint
      tmp_ = z_ + (0.5 * h_) * f_;
      field(tmp_, f_);
      z1_ = z_ + h_ * f_;
    }

    auto residual = [this, h0](const VecZ& x, VecZ& r) {
      const double h1 = hamiltonian(x);  // first: gradient() leaves the data apply_pi uses
      zbar_ = 0.5 * (z_ + x);
      gradient(zbar_, dg_);
      d_ = x - z_;
      dg_ += gonzalez_coefficient(h1, h0, dg_.dot(d_), d_.squaredNorm(), zbar_.squaredNorm(),
                                  dg_.dot(zbar_)) *
             d_;
      apply_pi(dg_, r);
      r = x - z_ - h_ * r;
    };
    auto jacobian = [this](const VecZ& x, MatZ& jac) {
      zbar_ = 0.5 * (z_ + x);
      field(zbar_, f_);
      for (int j = 0; j < nz_; ++j) {
        const double d = 1e-7 * std::max(1.0, std::abs(zbar_(j)));
        tmp_ = zbar_;
        tmp_(j) += d;
        field(tmp_, f1_);
        jac.col(j) = (-0.5 * h_ / d) * (f1_ - f_);
        jac(j, j) += 1.0;
      }
    };
    const StepStatus st = newton_.solve(z1_, residual, jacobian, ns_, residual_out);
    if (st != StepStatus::kOk) {
      constraint_t(q_, a_);  // the iterates moved a_; a next step reads mu(q)^T there
      return st;
    }
    // (iii) back to canonical coordinates at q'.
    zh_[2].swap(zh_[1]);
    zh_[1].swap(zh_[0]);
    zh_[0] = z_;
    history_ = std::min(history_ + 1, kHistory);
    z_ = z1_;
    have_reduced_ = true;
    q_ = head_q(z1_);
    qa_ = q_;
    at_qa();
    velocities(tail_r(z1_));
    p_ = pa_;
    return StepStatus::kOk;
  }

 private:
  static bool identity_mass(const S& sys) {
    if constexpr (RuntimeIdentityMass<S>) {
      return sys.identity_mass();
    } else {
      return S::kIdentityMass;
    }
  }

  /// a = mu(q)^T (nq x nc).
  void constraint_t(const VecQ& q, MatQC& a) {
    sys_.constraint(q, mu_);
    a = mu_.transpose();
  }

  /// M(q); a constant mass matrix is the one computed at construction (no copy, no heap), a
  /// varying one is written in place by the system's mass_matrix(q, out).
  void mass(const VecQ& q, MatQ& out) const {
    if constexpr (!S::kConstantMass) sys_.mass_matrix(q, out);
  }

  /// The frame (frozen signs) and M at q = qa_: a_, frame_, mass_.
  void at_qa() {
    constraint_t(qa_, a_);
    frame_.compute(a_);
    mass(qa_, mass_);
  }

  /// With the frame and M at qa_: u = g^-1 rho (ua_), g = X^T M X; v = X u = M^-1 p (va_);
  /// p = M v (pa_), eq. (16a).
  template <class Rho>
  void velocities(const Rho& rho) {
    if (identity_mass_) {
      ua_ = rho;  // g = X^T X = I
    } else {
      bqq_ = mass_;  // g = the trailing block of Q^T M Q
      frame_.apply_qt(bqq_);
      frame_.apply_q_right(bqq_);
      gm_ = bqq_.bottomRightCorner(m_, m_);
      llt_.compute(gm_);
      ua_ = llt_.solve(rho);
    }
    head_c(bq_).setZero();
    tail_r(bq_) = ua_;
    frame_.apply_q(bq_);
    va_ = bq_;
    if (identity_mass_) {
      pa_ = va_;
    } else {
      pa_.noalias() = mass_ * va_;
    }
  }

  /// The first nq entries of a vector of length nq (q of zeta, or all of it), the last nq - nc
  /// (rho of zeta), and the first nc: fixed-size blocks where the system's sizes are.
  template <class V>
  auto head_q(V& v) const {
    if constexpr (kFixed) {
      return v.template head<NQ>();
    } else {
      return v.head(n_);
    }
  }
  template <class V>
  auto tail_r(V& v) const {
    if constexpr (kFixed) {
      return v.template tail<NR>();
    } else {
      return v.tail(m_);
    }
  }
  template <class V>
  auto head_c(V& v) const {
    if constexpr (kFixed) {
      return v.template head<NC>();
    } else {
      return v.head(nc_);
    }
  }

  /// Increment of the fourth-order central differences: truncation ~ e^4, round-off ~ eps / e.
  static double fd_step(double x) { return 1e-3 * std::max(1.0, std::abs(x)); }
  /// Weight of f(x + k e) in (f(x-2e) - 8 f(x-e) + 8 f(x+e) - f(x+2e)) / (12 e), times e.
  static double fd4_weight(double k) {
    return k == 1.0 ? 8.0 / 12.0 : k == -1.0 ? -8.0 / 12.0 : k == 2.0 ? -1.0 / 12.0 : 1.0 / 12.0;
  }

  /// H(q, rho) = 1/2 rho^T g^-1 rho + V(q) with the frozen-sign frame at q; with M = I,
  /// 1/2 |rho|^2 + V(q) (no frame needed).
  double hamiltonian(const VecZ& z) {
    if (identity_mass_) {
      qa_ = head_q(z);
      return 0.5 * tail_r(z).squaredNorm() + sys_.potential(qa_);
    }
    qa_ = head_q(z);
    at_qa();
    velocities(tail_r(z));
    return 0.5 * tail_r(z).dot(ua_) + sys_.potential(qa_);
  }

  /// t_ (column i: (p^T dX/dq^i)^T; on the one-row path only da_, see apply_pi) and, for a
  /// varying M without kinetic_gradient, dM/dq^i (dm_), with the frame, M, u, v and p at qa_.
  void frame_derivatives() {
    if (derivative_ == FrameDerivative::kAlgorithm1) {
      constraint_derivatives();
      if (!one_row_) frame_.pullback_derivatives(a_, da_, pa_, t_);
    } else {
      const double e = std::abs(h_);
      for (int i = 0; i < n_; ++i) {
        for (const double k : {1.0, -1.0}) {
          dv_ = qa_;
          dv_(i) += k * e;
          constraint_t(dv_, a1_);
          frame_.compute(a1_);
          bq_ = pa_;
          frame_.apply_qt(bq_);
          if (k > 0.0) {
            t_.col(i) = tail_r(bq_);
          } else {
            t_.col(i) -= tail_r(bq_);
          }
        }
        t_.col(i) /= 2.0 * e;
      }
      frame_.compute(a_);
    }
    if constexpr (kMassDifferences) {
      for (int i = 0; i < n_; ++i) {
        const double e = fd_step(qa_(i));
        MatQ& dm = dm_[static_cast<std::size_t>(i)];
        dm.setZero();
        for (const double k : {-2.0, -1.0, 1.0, 2.0}) {
          dv_ = qa_;
          dv_(i) += k * e;
          mass(dv_, mp_);
          dm += (fd4_weight(k) / e) * mp_;
        }
      }
    }
  }

  /// da_[c] = d mu_c / dq at qa_ (see the file comment): from constraint_dot where the system
  /// has it, else the complex step where mu accepts a complex q, else fourth-order central
  /// differences.
  void constraint_derivatives() {
    if constexpr (ConstraintDot<S>) {  // exact: column i is d mu / dt along q' = e_i
      dv_.setZero();
      for (int i = 0; i < n_; ++i) {
        dv_(i) = 1.0;
        sys_.constraint_dot(qa_, dv_, mu_);
        dv_(i) = 0.0;
        for (int c = 0; c < nc_; ++c)
          da_[static_cast<std::size_t>(c)].col(i) = mu_.row(c).transpose();
      }
    } else if constexpr (ComplexStepConstraint<S>) {
      qc_ = qa_.template cast<std::complex<double>>();
      for (int i = 0; i < n_; ++i) {
        qc_(i) = std::complex<double>(qa_(i), kComplexStep);
        sys_.constraint(qc_, muc_);
        qc_(i) = qa_(i);
        for (int c = 0; c < nc_; ++c) {
          da_[static_cast<std::size_t>(c)].col(i) =
              muc_.imag().row(c).transpose() * (1.0 / kComplexStep);
        }
      }
    } else {
      for (auto& da : da_) da.setZero();
      for (int i = 0; i < n_; ++i) {
        const double e = fd_step(qa_(i));
        for (const double k : {-2.0, -1.0, 1.0, 2.0}) {
          dv_ = qa_;
          dv_(i) += k * e;
          constraint_t(dv_, a1_);
          for (int c = 0; c < nc_; ++c) {
            da_[static_cast<std::size_t>(c)].col(i) += (fd4_weight(k) / e) * a1_.col(c);
          }
        }
      }
    }
  }

  /// grad H(z), eq. (18a-b), and Pi's block -C rho (skew_), eq. (17), for apply_pi.
  void gradient(const VecZ& z, VecZ& g) {
    qa_ = head_q(z);
    at_qa();
    velocities(tail_r(z));
    frame_derivatives();
    sys_.grad_potential(qa_, dv_);
    head_q(g) = dv_;
    // p^T (dX/dq^i) u. With M = I it vanishes (p = X u, and X^T dX/dq^i is skew since X^T X = I),
    // so the one-row path skips it.
    if (!one_row_) {
      head_q(g).noalias() -= t_.transpose() * ua_;
    } else if (!identity_mass_) {
      if constexpr (kOneRowPossible) {
        frame_.pullback_transpose(a_, da_[0], pa_, ua_, tn_);
        head_q(g) -= tn_;
      }
    }
    if constexpr (KineticGradient<S>) {
      sys_.kinetic_gradient(qa_, va_, tn_);
      head_q(g) -= tn_;
    } else if constexpr (kMassDifferences) {
      for (int i = 0; i < n_; ++i) {
        tn_.noalias() = dm_[static_cast<std::size_t>(i)] * va_;
        g(i) -= 0.5 * va_.dot(tn_);
      }
    }
    tail_r(g) = ua_;
    if (one_row_) return;  // apply_pi applies -C rho without forming it
    // (-C rho)_ab = T_ab - T_ba, T_ab = sum_i (p^T dX/dq^i)_a X_b^i, i.e. T = t X.
    bt_ = t_;
    frame_.apply_q_right(bt_);
    skew_ = bt_.rightCols(m_) - bt_.rightCols(m_).transpose();
  }

  /// out = Pi v with Pi = [[0, X], [-X^T, -C rho]] from the last gradient() call, eq. (8), (17).
  void apply_pi(const VecZ& v, VecZ& out) {
    head_c(bq_).setZero();
    tail_r(bq_) = tail_r(v);
    frame_.apply_q(bq_);
    head_q(out) = bq_;  // X v_rho
    if constexpr (kOneRowPossible) {
      if (one_row_) {
        // -X^T v_q - C rho v_rho with -C rho = T - T^T, T = t X:
        //   t (X v_rho) - X^T (v_q + t^T v_rho).
        frame_.pullback_along(a_, da_[0], pa_, bq_, sv_);
        frame_.pullback_transpose(a_, da_[0], pa_, tail_r(v), bq_);
        bq_ += head_q(v);
        frame_.apply_qt(bq_);
        tail_r(out) = sv_ - tail_r(bq_);
        return;
      }
    }
    bq_ = head_q(v);
    frame_.apply_qt(bq_);
    tail_r(out) = -tail_r(bq_);
    tail_r(out).noalias() += skew_ * tail_r(v);
  }

  /// f(z) = Pi(z) grad H(z), eq. (9).
  void field(const VecZ& z, VecZ& out) {
    gradient(z, dg_);
    apply_pi(dg_, out);
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  FrameDerivative derivative_;
  int n_, nc_, m_, nz_;
  bool identity_mass_;
  bool one_row_;  // nc = 1 with Algorithm 1: -C rho and p^T dX u from the reflector's derivative
  Frame frame_;
  SimplifiedNewton<NZ> newton_;
  VecQ q_, p_;
  typename Frame::VecC signs_;  // Householder signs of the frame rho in z_ refers to
  bool have_reduced_ = false;   // z_ = (q_, rho) is valid in the frame with signs_
  VecZ z_, z1_, zbar_, tmp_, f_, f1_, dg_, d_;
  static constexpr int kHistory = 3;
  std::array<VecZ, kHistory> zh_;     // zeta_{n-1}, zeta_{n-2}, zeta_{n-3} (predictor)
  int history_ = 0;                   // how many of zh_ are valid in the current frame
  VecQ qa_, va_, pa_, dv_, bq_, tn_;  // bq_: products with Q
  VecR ua_, sv_;                      // sv_: -C rho v (one_row_)
  Eigen::Matrix<std::complex<double>, NQ, 1, Eigen::ColMajor, MQ, 1> qc_;
  Eigen::Matrix<std::complex<double>, NC, NQ,
                (NC == 1 && NQ != 1) ? Eigen::RowMajor : Eigen::ColMajor, capacity_nc<S>(), MQ>
      muc_;
  typename S::MatCQ mu_;
  MatQC a_, a1_;  // mu^T at qa_, and at a shifted point
  MatQ mass_, mp_, bqq_;
  MatR gm_, skew_;
  MatRQ t_, bt_;                              // column i: (p^T dX/dq^i)^T; t X
  std::vector<typename Frame::Jacobian> da_;  // [c]: d mu_c / dq
  std::vector<MatQ> dm_;
  Eigen::LLT<MatR> llt_;
};

/// gonzalez_r_fd: GonzalezRMethod with the central-difference frame derivative.
template <class S>
class GonzalezRFdMethod : public GonzalezRMethod<S> {
 public:
  GonzalezRFdMethod(const S& sys, double h, NewtonSettings ns)
      : GonzalezRMethod<S>(sys, h, ns, FrameDerivative::kCentralDifference) {}
};

}  // namespace nhsim

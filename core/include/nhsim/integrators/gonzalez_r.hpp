// `gonzalez_r` and `gonzalez_r_fd`: the discrete gradient method eq. (14) applied to the reduced
// equations (9) WITHOUT an analytic reduced form, seed 001 §3.3 (GONZALEZ-R) and Remark 3.5.
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
//   * gonzalez_r: dX/dq^i by Algorithm 1 (differentiated Householder QR). It needs dmu/dq; the
//     systems do not provide it, so it is taken by the complex step Im mu(q + i 1e-20 e_i) / 1e-20
//     (exact to round-off) when S::constraint accepts a complex q (all current systems), else
//     by fourth-order central differences of mu with increment 1e-3 max(1, |q_i|). Plain
//     second-order differences are too noisy (~eps / increment): the noise enters the residual
//     and stalls the Newton iteration (seen on the rolling disk).
//   * gonzalez_r_fd: dX/dq^i by central differences of the frame (same frozen signs) with the
//     increment |h| (the time step), as in Remark 3.5: O(h^2), so the method keeps order 2.
//   * dM/dq^i: zero for kConstantMass systems, else fourth-order central differences of M
//     (increment 1e-3 max(1, |q_i|); error ~ 1e-12 relative).
// None of these approximations affects energy or constraint preservation (Pi stays skew, the
// frame stays exact), only the O(h^2) local error constant.
//
// Newton: unknowns zeta' (length 2 nq - nc), SimplifiedNewton with J = I - (h/2) Df(zeta_bar),
// f = Pi grad H, by forward differences; predictor: explicit midpoint on f each step (the frame
// and hence rho may change sign between steps, so no extrapolation of old increments).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "nhsim/complex_step.hpp"
#include "nhsim/integrators/gonzalez_quotient.hpp"
#include "nhsim/integrators/qr_frame.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// How dX/dq is obtained.
enum class FrameDerivative { kAlgorithm1, kCentralDifference };

template <class S, FrameDerivative D>
class GonzalezRMethod {
 public:
  using VecQ = typename S::VecQ;
  using Vec = Eigen::VectorXd;
  using Mat = Eigen::MatrixXd;

  GonzalezRMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        n_(sys.nq()),
        nc_(sys.nc()),
        m_(sys.nq() - sys.nc()),
        nz_(2 * sys.nq() - sys.nc()),
        frame_(sys.nq(), sys.nc()),
        newton_(2 * sys.nq() - sys.nc()),
        q_(n_),
        p_(n_),
        signs_(sys.nc()),
        z_(nz_),
        z1_(nz_),
        zbar_(nz_),
        tmp_(nz_),
        f_(nz_),
        f1_(nz_),
        dg_(nz_),
        d_(nz_),
        qa_(n_),
        va_(n_),
        pa_(n_),
        dv_(n_),
        ua_(m_),
        qc_(n_),
        muc_(nc_, n_),
        x_(n_, m_),
        xp_(n_, m_),
        mass_(sys.mass_matrix_dyn(VecQ::Zero(sys.nq()))),
        mp_(n_, n_),
        gm_(m_, m_),
        ct_(m_, m_),
        skew_(m_, m_),
        xtm_(m_, n_),
        mu_(nc_, n_),
        mu1_(nc_, n_),
        a_(n_, nc_),
        tn_(n_),
        tm_(m_),
        da_(static_cast<std::size_t>(n_), Mat(n_, nc_)),
        dx_(static_cast<std::size_t>(n_), Mat(n_, m_)),
        dm_(static_cast<std::size_t>(n_), Mat(n_, n_)),
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

  /// The frame helper (for tests): signs, X and dX of the last evaluation.
  HouseholderFrame& frame() { return frame_; }

  StepStatus step(double& residual_out) {
    // (i) frozen signs at q, rho = X^T p. When the signs are those of the previous step's end
    // point, the frame at q is the one rho' was computed in: keep zeta = (q, rho') and skip the
    // p -> rho round trip (whose round-off would otherwise random-walk into the energy).
    frame_.choose_signs(constraint_t(q_));
    if (!have_reduced_ || frame_.signs() != signs_) {
      signs_ = frame_.signs();
      frame_.compute(constraint_t(q_));
      z_.head(n_) = q_;
      z_.tail(m_).noalias() = frame_.x().transpose() * p_;
    }
    frame_.set_signs(signs_);
    const double h0 = hamiltonian(z_);

    // Predictor: explicit midpoint.
    field(z_, f_);
    tmp_ = z_ + (0.5 * h_) * f_;
    field(tmp_, f_);
    z1_ = z_ + h_ * f_;

    auto residual = [this, h0](const Vec& x, Vec& r) {
      zbar_ = 0.5 * (z_ + x);
      gradient(zbar_, dg_);  // also leaves X, dX, p at zbar in x_, dx_, pa_
      d_ = x - z_;
      dg_ += gonzalez_coefficient(hamiltonian(x), h0, dg_.dot(d_), d_.squaredNorm(),
                                  zbar_.squaredNorm(), dg_.dot(zbar_)) *
             d_;
      apply_pi(dg_, r);
      r = x - z_ - h_ * r;
    };
    auto jacobian = [this](const Vec& x, Mat& jac) {
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
    if (st != StepStatus::kOk) return st;
    // (iii) back to canonical coordinates at q'.
    z_ = z1_;
    have_reduced_ = true;
    q_ = z1_.head(n_);
    frame_.compute(constraint_t(q_));
    mass(q_, mass_);
    xtm_.noalias() = frame_.x().transpose() * mass_;  // (X^T M) X, as Eigen would, in place
    gm_.noalias() = xtm_ * frame_.x();
    llt_.compute(gm_);
    ua_ = llt_.solve(z1_.tail(m_));
    va_.noalias() = frame_.x() * ua_;
    p_.noalias() = mass_ * va_;
    return StepStatus::kOk;
  }

 private:
  const Mat& constraint_t(const Vec& q) {
    sys_.constraint(q, mu_);
    a_ = mu_.transpose();
    return a_;
  }

  /// M(q); a constant mass matrix is the one computed at construction (no copy, no heap).
  void mass(const Vec& q, Mat& out) const {
    if constexpr (!S::kConstantMass) out = sys_.mass_matrix_dyn(q);
  }

  /// Increment of the fourth-order central differences: truncation ~ e^4, round-off ~ eps / e.
  static double fd_step(double x) { return 1e-3 * std::max(1.0, std::abs(x)); }
  /// Weight of f(x + k e) in (f(x-2e) - 8 f(x-e) + 8 f(x+e) - f(x+2e)) / (12 e), times e.
  static double fd4_weight(double k) {
    return k == 1.0 ? 8.0 / 12.0 : k == -1.0 ? -8.0 / 12.0 : k == 2.0 ? -1.0 / 12.0 : 1.0 / 12.0;
  }

  /// H(q, rho) = 1/2 rho^T g^-1 rho + V(q) with the frozen-sign frame at q.
  double hamiltonian(const Vec& z) {
    qa_ = z.head(n_);
    frame_.compute(constraint_t(qa_));
    mass(qa_, mass_);
    xtm_.noalias() = frame_.x().transpose() * mass_;
    gm_.noalias() = xtm_ * frame_.x();
    llt_.compute(gm_);
    ua_ = llt_.solve(z.tail(m_));
    return 0.5 * z.tail(m_).dot(ua_) + sys_.potential(qa_);
  }

  /// X (x_), dX/dq^i (dx_), M (mass_), dM/dq^i (dm_, if not constant) at q = qa_.
  void frame_with_derivatives() {
    if constexpr (D == FrameDerivative::kAlgorithm1) {
      // dA/dq^i (see the file comment): complex step where mu accepts complex q, else
      // fourth-order central differences.
      if constexpr (ComplexStepConstraint<S>) {
        for (int i = 0; i < n_; ++i) {
          qc_ = qa_.template cast<std::complex<double>>();
          qc_(i) += std::complex<double>(0.0, kComplexStep);
          sys_.constraint(qc_, muc_);
          da_[static_cast<std::size_t>(i)] = muc_.imag().transpose() / kComplexStep;
        }
      } else {
        for (int i = 0; i < n_; ++i) {
          const double e = fd_step(qa_(i));
          Mat& da = da_[static_cast<std::size_t>(i)];
          da.setZero();
          for (const double k : {-2.0, -1.0, 1.0, 2.0}) {
            dv_ = qa_;
            dv_(i) += k * e;
            sys_.constraint(dv_, mu1_);
            da += (fd4_weight(k) / e) * mu1_.transpose();
          }
        }
      }
      sys_.constraint(qa_, mu_);
      a_ = mu_.transpose();
      frame_.compute_with_derivatives(a_, da_);
      x_ = frame_.x();
      for (int i = 0; i < n_; ++i) dx_[static_cast<std::size_t>(i)] = frame_.dx(i);
    } else {
      const double e = std::abs(h_);
      for (int i = 0; i < n_; ++i) {
        dv_ = qa_;
        dv_(i) += e;
        frame_.compute(constraint_t(dv_));
        xp_ = frame_.x();
        dv_(i) = qa_(i) - e;
        frame_.compute(constraint_t(dv_));
        dx_[static_cast<std::size_t>(i)] = (xp_ - frame_.x()) / (2.0 * e);
      }
      frame_.compute(constraint_t(qa_));
      x_ = frame_.x();
    }
    mass(qa_, mass_);
    if constexpr (!S::kConstantMass) {
      for (int i = 0; i < n_; ++i) {
        const double e = fd_step(qa_(i));
        Mat& dm = dm_[static_cast<std::size_t>(i)];
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

  /// grad H(z), eq. (18a-b); leaves X, dX, u (ua_), p (pa_) at z for apply_pi.
  void gradient(const Vec& z, Vec& g) {
    qa_ = z.head(n_);
    frame_with_derivatives();
    xtm_.noalias() = x_.transpose() * mass_;
    gm_.noalias() = xtm_ * x_;
    llt_.compute(gm_);
    ua_ = llt_.solve(z.tail(m_));
    va_.noalias() = x_ * ua_;
    pa_.noalias() = mass_ * va_;
    sys_.grad_potential(qa_, dv_);
    for (int i = 0; i < n_; ++i) {
      tn_.noalias() = dx_[static_cast<std::size_t>(i)] * ua_;
      double gi = dv_(i) - pa_.dot(tn_);
      if constexpr (!S::kConstantMass) {
        tn_.noalias() = dm_[static_cast<std::size_t>(i)] * va_;
        gi -= 0.5 * va_.dot(tn_);
      }
      g(i) = gi;
    }
    g.tail(m_) = ua_;
  }

  /// out = Pi v with Pi = [[0, X], [-X^T, -C rho]] from the last gradient() call, eq. (8), (17).
  void apply_pi(const Vec& v, Vec& out) {
    // T_ab = sum_i (dX_i^T p)_a X_b^i;  -C rho = T - T^T.
    ct_.setZero();
    for (int i = 0; i < n_; ++i) {
      tm_.noalias() = dx_[static_cast<std::size_t>(i)].transpose() * pa_;
      ct_.noalias() += tm_ * x_.row(i);
    }
    out.head(n_).noalias() = x_ * v.tail(m_);
    out.tail(m_).noalias() = x_.transpose() * v.head(n_);
    out.tail(m_) = -out.tail(m_);
    skew_ = ct_ - ct_.transpose();
    out.tail(m_).noalias() += skew_ * v.tail(m_);
  }

  /// f(z) = Pi(z) grad H(z), eq. (9).
  void field(const Vec& z, Vec& out) {
    gradient(z, dg_);
    apply_pi(dg_, out);
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  int n_, nc_, m_, nz_;
  HouseholderFrame frame_;
  SimplifiedNewton<Eigen::Dynamic> newton_;
  Vec q_, p_;
  Eigen::VectorXd signs_;      // Householder signs of the frame rho in z_ refers to
  bool have_reduced_ = false;  // z_ = (q_, rho) is valid in the frame with signs_
  Vec z_, z1_, zbar_, tmp_, f_, f1_, dg_, d_;
  Vec qa_, va_, pa_, dv_, ua_;
  Eigen::VectorXcd qc_;
  Eigen::MatrixXcd muc_;
  Mat x_, xp_, mass_, mp_, gm_, ct_, skew_, xtm_, mu_, mu1_, a_;
  Vec tn_, tm_;  // products taken apart so that no temporary is allocated
  std::vector<Mat> da_, dx_, dm_;
  Eigen::LLT<Mat> llt_;
};

struct GonzalezRIntegrator {
  static constexpr const char* kDescription =
      "Discrete gradient method eq. (14) with the Gonzalez discrete gradient on the reduced "
      "equations (9) built from canonical data: adapted frame from a Householder QR of the "
      "constraint matrix with derivatives by Algorithm 1 (signs fixed within a step)";
  static constexpr const char* kSource = "seed 001 §3.3, eq. (16)-(18), Algorithm 1";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "gonzalez_r";
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>;
  static constexpr const char* kRequirement = "a canonical form (M, V, mu on T*Q)";
  template <class S>
  using Method = GonzalezRMethod<S, FrameDerivative::kAlgorithm1>;
};

struct GonzalezRFdIntegrator {
  static constexpr const char* kDescription =
      "gonzalez_r with dX/dq by central differences of the QR frame with increment h "
      "(Remark 3.5)";
  static constexpr const char* kSource = "seed 001 §3.3, eq. (16)-(18), Remark 3.5";
  static constexpr int kOrder = 2;
  static constexpr bool kImplicit = true;
  static constexpr bool kEnergyPreserving = true;
  static constexpr double kNewtonTol = 1e-14;
  static constexpr int kNewtonMaxIter = 50;
  static constexpr const char* kId = "gonzalez_r_fd";
  template <class S>
  static constexpr bool kApplies = CanonicalForm<S>;
  static constexpr const char* kRequirement = "a canonical form (M, V, mu on T*Q)";
  template <class S>
  using Method = GonzalezRMethod<S, FrameDerivative::kCentralDifference>;
};

}  // namespace nhsim

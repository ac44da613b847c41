// The rolling disk (vertical unicycle) on Q = R^4, [Celledoni2019] §2 ("Example (Rolling disk)"),
// eq. (2) and the continued examples of §2.1, §2.1.1, §2.2.1 and §3.2.
//
// q = (x1, x2, theta, phi): contact point (x1, x2) [m], heading angle theta [rad], self-rotation
// angle phi [rad]. Metric g = M = diag(m, m, J_theta, J_phi), V = 0, so
//   H(q, p) = 1/2 (p1^2 / m + p2^2 / m + p3^2 / J_theta + p4^2 / J_phi).
// Rolling without slipping, eq. (2): x1' - r phi' cos(theta) = 0, x2' - r phi' sin(theta) = 0,
// i.e. mu(q) = [[1, 0, 0, -r cos theta], [0, 1, 0, -r sin theta]] (2 x 4) and, in canonical
// coordinates, mu(q) M^-1 p = 0.
//
// Reduced form on D*: zeta = (q, rho) in R^6 with the adapted frame of [Celledoni2019] §2.1.1
//   X1 = r cos(theta) d/dx1 + r sin(theta) d/dx2 + d/dphi,   X2 = d/dtheta,
//   g_ab = X^T M X = diag(m r^2 + J_phi, J_theta)  (constant),
//   rho = X^T p (eq. 16b),  p = M X g_ab^-1 rho (eq. 16a; M is not the identity here),
//   H(zeta) = 1/2 [rho1^2 / (m r^2 + J_phi) + rho2^2 / J_theta]          (§2.2.1 example)
// and Pi(zeta) as printed in §2.2.1 (C_ab^c = 0 since [X1, X2] lies in D^perp):
//   Pi = [[0, X], [-X^T, 0]],  X = [[r cos theta, 0], [r sin theta, 0], [0, 1], [1, 0]].
// Explicit solution (§2.1.2 example, "immediately explicitly integrated"): rho constant,
// theta(t) = theta0 + w t, phi(t) = phi0 + v t with w = rho2 / J_theta, v = rho1 / (m r^2 +
// J_phi), and x1, x2 by integrating r v cos(theta(t)), r v sin(theta(t)); see exact_flow().
//
// The paper gives no numerical values for the disk: every parameter defaults to 1 (SI units).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The rolling disk of [Celledoni2019] §2. Fixed sizes: q, p in R^4, rho in R^2, zeta in R^6, two
/// constraints. Parameters (all > 0, else the constructor throws std::invalid_argument):
/// m [kg] mass, r [m] radius, J_theta [kg m^2] moment of inertia about the vertical (heading)
/// axis, J_phi [kg m^2] moment of inertia about the rolling axis.
class RollingDisk : public ReducedTypes<4, 2, 2>, public ZeroPotential {
 public:
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = true;
  /// The system provides exact_flow() (used by the `exact` integrator).
  static constexpr bool kHasExactFlow = true;

  /// m [kg], r [m], J_theta [kg m^2], J_phi [kg m^2]; each must be finite and > 0.
  RollingDisk(double m, double r, double j_theta, double j_phi)
      : m_(m), r_(r), jt_(j_theta), jp_(j_phi), i1_(m * r * r + j_phi) {
    for (const double v : {m, r, j_theta, j_phi}) {
      if (!(v > 0.0) || !std::isfinite(v)) {
        throw std::invalid_argument("rolling disk: m, r, J_theta, J_phi must be finite and > 0");
      }
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  int nr() const { return NR; }
  int nz() const { return NZ; }

  double m() const { return m_; }
  double r() const { return r_; }
  double j_theta() const { return jt_; }
  double j_phi() const { return jp_; }
  /// g_11 = m r^2 + J_phi [kg m^2], the inertia of the rolling mode X1.
  double rolling_inertia() const { return i1_; }

  // ---- canonical form: H(q, p) = 1/2 p^T M^-1 p, [Celledoni2019] eq. (6c-d), (2) ----

  /// v = M^-1 p = (p1/m, p2/m, p3/J_theta, p4/J_phi) [velocities]; p of length 4.
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    const double p0 = p(0), p1 = p(1), p2 = p(2), p3 = p(3);
    v(0) = p0 / m_;
    v(1) = p1 / m_;
    v(2) = p2 / jt_;
    v(3) = p3 / jp_;
  }

  /// M = diag(m, m, J_theta, J_phi) (constant), 4 x 4.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    Eigen::MatrixXd mm = Eigen::MatrixXd::Zero(NQ, NQ);
    mm.diagonal() << m_, m_, jt_, jp_;
    return mm;
  }

  /// H(q, p) = 1/2 p^T M^-1 p [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& /*q*/, const VP& p) const {
    return 0.5 * ((p(0) * p(0) + p(1) * p(1)) / m_ + p(2) * p(2) / jt_ + p(3) * p(3) / jp_);
  }

  /// Constraint one-forms mu(q), 2 x 4, eq. (2): rows (1, 0, 0, -r cos theta) and
  /// (0, 1, 0, -r sin theta).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu.setZero();
    mu(0, 0) = 1.0;
    mu(1, 1) = 1.0;
    const auto [s, c] = dmath::sincos(q(2));
    mu(0, 3) = -r_ * c;
    mu(1, 3) = -r_ * s;
  }

  /// mu(q) M^-1 p (length 2) [m/s]: x1' - r phi' cos(theta), x2' - r phi' sin(theta).
  template <class VQ, class VP>
  VecC constraint_value(const VQ& q, const VP& p) const {
    const double phidot = p(3) / jp_;
    const auto [s, c] = dmath::sincos(q(2));
    return VecC(p(0) / m_ - r_ * phidot * c, p(1) / m_ - r_ * phidot * s);
  }

  /// max_alpha |mu^alpha(q) M^-1 p| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return constraint_value(q, p).template lpNorm<Eigen::Infinity>();
  }

  // ---- reduced form on D*, eq. (7)-(9), (16), §2.2.1 example ----

  /// rho = X(q)^T p, eq. (16b): rho1 = r cos(theta) p1 + r sin(theta) p2 + p4, rho2 = p3.
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& q, const VP& p, Out& rho) const {
    const auto [s, c] = dmath::sincos(q(2));
    rho(0) = r_ * (c * p(0) + s * p(1)) + p(3);
    rho(1) = p(2);
  }

  /// p = M X(q) g_ab^-1 rho, eq. (16a): with y1 = rho1 / (m r^2 + J_phi), y2 = rho2 / J_theta,
  /// p = (m r cos(theta) y1, m r sin(theta) y1, J_theta y2, J_phi y1). Satisfies the
  /// constraints exactly (up to round-off).
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& q, const VRho& rho, Out& p) const {
    const double y1 = rho(0) / i1_;
    const double y2 = rho(1) / jt_;
    const auto [s, c] = dmath::sincos(q(2));
    p(0) = m_ * r_ * c * y1;
    p(1) = m_ * r_ * s * y1;
    p(2) = jt_ * y2;
    p(3) = jp_ * y1;
  }

  /// H(zeta) = 1/2 [rho1^2 / (m r^2 + J_phi) + rho2^2 / J_theta] [J], zeta of length 6.
  double reduced_hamiltonian(const VecZ& zeta) const {
    return 0.5 * (zeta(4) * zeta(4) / i1_ + zeta(5) * zeta(5) / jt_);
  }

  /// grad H(zeta) = (0, 0, 0, 0, rho1 / (m r^2 + J_phi), rho2 / J_theta).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    g.setZero();
    g(4) = zeta(4) / i1_;
    g(5) = zeta(5) / jt_;
  }

  /// out = Pi(zeta) v with Pi of the §2.2.1 example (eq. (8) with C_ab^c = 0); v of length 6.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    const auto [sin_theta, cos_theta] = dmath::sincos(zeta(2));
    const T c = r_ * cos_theta, s = r_ * sin_theta;
    const T v0 = v(0), v1 = v(1), v2 = v(2), v3 = v(3), v4 = v(4), v5 = v(5);
    out(0) = c * v4;
    out(1) = s * v4;
    out(2) = v5;
    out(3) = v4;
    out(4) = -c * v0 - s * v1 - v3;
    out(5) = -v2;
  }

  /// f(zeta) = Pi(zeta) grad H(zeta), the reduced vector field eq. (9).
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    reduced_gradient(zeta, grad_ws);
    apply_pi(zeta, grad_ws, out);
  }

  /// The exact flow of eq. (9) over time t [s] (any sign), [Celledoni2019] §2.1.2 example:
  ///   rho(t) = rho,  theta(t) = theta + w t,  phi(t) = phi + v t,
  ///   x1(t) = x1 + r v t cos(theta + w t / 2) sinc(w t / 2),
  ///   x2(t) = x2 + r v t sin(theta + w t / 2) sinc(w t / 2),
  /// with w = rho2 / J_theta, v = rho1 / (m r^2 + J_phi), sinc(u) = sin(u) / u. This is
  /// r v (sin(theta(t)) - sin(theta)) / w resp. -r v (cos(theta(t)) - cos(theta)) / w written
  /// without the cancellation of the difference; the branch theta' = w = 0 (straight rolling,
  /// x(t) = x + r v t (cos theta, sin theta)) is sinc(0) = 1, and for |u| < 1e-4 the series
  /// 1 - u^2/6 is used (truncation u^4/120 < 1e-18). zeta and out have length 6 and may alias.
  template <class Out>
  void exact_flow(const VecZ& zeta, double t, Out& out) const {
    const double v = zeta(4) / i1_;
    const double w = zeta(5) / jt_;
    const double th = zeta(2);
    const double u = 0.5 * w * t;
    double sinc = 1.0;
    if (u == 0.0) {
      sinc = 1.0;  // theta' = 0: straight rolling
    } else if (std::abs(u) < 1e-4) {
      sinc = 1.0 - u * u / 6.0;
    } else {
      sinc = dmath::sin(u) / u;
    }
    const double thm = th + u;
    const double dx = r_ * v * t * sinc;
    const auto [sin_thm, cos_thm] = dmath::sincos(thm);
    const double x1 = zeta(0) + dx * cos_thm;
    const double x2 = zeta(1) + dx * sin_thm;
    const double th1 = th + w * t;
    const double ph1 = zeta(3) + v * t;
    const double rho1 = zeta(4), rho2 = zeta(5);
    out(0) = x1;
    out(1) = x2;
    out(2) = th1;
    out(3) = ph1;
    out(4) = rho1;
    out(5) = rho2;
  }

 private:
  double m_, r_, jt_, jp_, i1_;
};

}  // namespace nhsim

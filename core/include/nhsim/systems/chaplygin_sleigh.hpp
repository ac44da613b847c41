// The Chaplygin sleigh on Q = SE(2), [Celledoni2019] §4.2, eq. (22)-(23), Prop. 4.1, Fig. 3.
//
// q = (x1, x2, theta): contact point of the knife edge (x1, x2) [m], orientation of the blade
// theta [rad]. Parameters: J [kg m^2] moment of inertia about the centre of mass, a [m] distance
// from the contact point to the centre of mass (which lies on the line of the blade, ahead of
// it), m [kg] mass. The Lagrangian of §4.2 is kinetic, V = 0, with the metric
//   M(q) = g = [[m, 0, -m a sin theta], [0, m, m a cos theta],
//               [-m a sin theta, m a cos theta, J + m a^2]]                  (not constant)
// and M^-1 p (Schur complement of the theta block is J):
//   theta' = (p3 + a sin(theta) p1 - a cos(theta) p2) / J,
//   x1' = p1 / m + a sin(theta) theta',   x2' = p2 / m - a cos(theta) theta'.
// Knife-edge constraint -x1' sin(theta) + x2' cos(theta) = 0: mu(q) = (-sin theta, cos theta, 0).
//
// Reduced form on D*: zeta = (x1, x2, theta, rho1, rho2) in R^5 with the orthonormal adapted frame
// of §4.2 (I := J + m a^2):
//   X1 = I^-1/2 d/dtheta,   X2 = m^-1/2 (cos(theta) d/dx1 + sin(theta) d/dx2),   g_ab = identity,
//   rho = X^T p (eq. 16b):  rho1 = p3 / sqrt(I),  rho2 = (cos(theta) p1 + sin(theta) p2) / sqrt(m),
//   p = M X rho (eq. 16a):  p = rho1 (-m a sin theta, m a cos theta, I) / sqrt(I)
//                              + rho2 sqrt(m) (cos theta, sin theta, 0),
//   H(zeta) = 1/2 (rho1^2 + rho2^2)                                    (§4.2, above eq. (22))
//   Pi(zeta) = [[0, X], [-X^T, -C rho1 [[0, 1], [-1, 0]]]],   C := C^1_12 = a sqrt(m) / I,
// which is the printed Pi(theta, rho1) of §4.2 and gives eq. (22):
//   rho1' = -C rho1 rho2,   rho2' = C rho1^2.
// Derived here from eq. (8)/(17): [X1, X2] = (I m)^-1/2 (-sin theta d/dx1 + cos theta d/dx2),
// whose g-orthogonal projection onto D is (a sqrt(m) / I) X1, so C^1_12 = -C^1_21 = a sqrt(m) / I
// and C^2_12 = 0; the (rho, rho) block -C_ab^c rho_c is as printed. Checked against the printed
// text: X1, X2 are g-orthonormal, the printed X3 is g-orthogonal to D with the printed norm, and
// (22) agrees with the classical sleigh equations m v' = m a w^2, I w' = -m a v w (v = rho2 /
// sqrt(m) the forward speed, w = rho1 / sqrt(I) = theta'). Differences from the printed text:
//   * (23b) prints "x2 = x2 + ..."; the left-hand side must read x2' (the updated value);
//   * the G equation after (23) uses C^1_21 = -C^1_12, so G = rho2' - rho2 - h/4 C^1_12
//     (rho1 + rho1')^2 = 0 is (23e) as printed; the Jacobian entry dG/drho1' = (h/2) C^1_21
//     (rho1 + rho1') is consistent with it.
// Prop. 4.1: the discrete gradient step (23) has the equilibria {rho1 = 0}; with
// h < |2 / (C^1_12 rho2)| the linearisation eigenvalue lambda1 = (2 - h C rho2) / (2 + h C rho2)
// is positive, < 1 for rho2 > 0 (stable) and > 1 for rho2 < 0 (unstable). With the paper's
// values J = 8, a = m = 1 (the defaults here): C = 1/9 and for |rho2| = 0.6 the bound is h < 30.
// The orthonormal frame needs no a != 0 (only the printed X3 does, and it is not used).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The Chaplygin sleigh of [Celledoni2019] §4.2. Fixed sizes: q, p in R^3, rho in R^2, zeta in R^5,
/// one constraint. Parameters: J [kg m^2] > 0, a [m] >= 0, m [kg] > 0, all finite, else the
/// constructor throws std::invalid_argument. Paper values (Fig. 3): J = 8, a = m = 1.
class ChaplyginSleigh : public ReducedTypes<3, 1, 2>, public ZeroPotential {
 public:
  /// M depends on theta: methods that need a constant mass matrix (si_dla) do not apply.
  static constexpr bool kConstantMass = false;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = true;

  /// J [kg m^2] (> 0), a [m] (>= 0), m [kg] (> 0); all finite.
  ChaplyginSleigh(double j, double a, double m)
      : j_(j),
        a_(a),
        m_(m),
        i_(j + m * a * a),
        si_(std::sqrt(j + m * a * a)),
        sm_(std::sqrt(m)),
        c_(a * std::sqrt(m) / (j + m * a * a)) {
    if (!(j > 0.0) || !(m > 0.0) || !(a >= 0.0) || !std::isfinite(j) || !std::isfinite(m) ||
        !std::isfinite(a)) {
      throw std::invalid_argument(
          "chaplygin sleigh: J, m must be finite and > 0, a finite and >= 0");
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  int nr() const { return NR; }
  int nz() const { return NZ; }

  double j() const { return j_; }
  double a() const { return a_; }
  double m() const { return m_; }
  /// I = J + m a^2 [kg m^2], the moment of inertia about the contact point.
  double contact_inertia() const { return i_; }
  /// C^1_12 = a sqrt(m) / (J + m a^2) [kg^-1/2 m^-1], the structure constant of Prop. 4.1.
  double c112() const { return c_; }
  /// The step bound of Prop. 4.1, |2 / (C^1_12 rho2)| [s]; +inf for C rho2 = 0.
  double step_bound(double rho2) const { return std::abs(2.0 / (c_ * rho2)); }
  /// lambda1 = (2 - h C^1_12 rho2) / (2 + h C^1_12 rho2), the rho1-eigenvalue of the linearised
  /// step (23d-e) at the equilibrium (0, rho2), Prop. 4.1.
  double prop41_eigenvalue(double h, double rho2) const {
    return (2.0 - h * c_ * rho2) / (2.0 + h * c_ * rho2);
  }

  // ---- canonical form: H(q, p) = 1/2 p^T M(q)^-1 p, [Celledoni2019] eq. (6c-d), §4.2 ----

  /// v = M(q)^-1 p (length 3) [m/s, m/s, rad/s], see the file comment.
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& q, const VP& p, Out& v) const {
    const auto [s, c] = dmath::sincos(q(2));
    const double p0 = p(0), p1 = p(1), p2 = p(2);
    const double w = (p2 + a_ * (s * p0 - c * p1)) / j_;
    v(0) = p0 / m_ + a_ * s * w;
    v(1) = p1 / m_ - a_ * c * w;
    v(2) = w;
  }

  /// M(q) of §4.2 into mm (3 x 3), without heap memory (gonzalez_r evaluates it in its steps).
  template <class VQ, class Out>
  void mass_matrix(const VQ& q, Out& mm) const {
    const auto [s, c] = dmath::sincos(q(2));
    mm << m_, 0.0, -m_ * a_ * s, 0.0, m_, m_ * a_ * c, -m_ * a_ * s, m_ * a_ * c, i_;
  }

  /// M(q) of §4.2, 3 x 3.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& q) const {
    Eigen::MatrixXd mm(NQ, NQ);
    mass_matrix(q, mm);
    return mm;
  }

  /// H(q, p) = 1/2 p^T M(q)^-1 p [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    return 0.5 * (p(0) * v(0) + p(1) * v(1) + p(2) * v(2));
  }

  /// Constraint one-form mu(q) = (-sin theta, cos theta, 0), 1 x 3.
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    const auto [s, c] = dmath::sincos(q(2));
    mu(0, 0) = -s;
    mu(0, 1) = c;
    mu(0, 2) = 0.0;
  }

  /// mu(q) M^-1 p = -x1' sin(theta) + x2' cos(theta) [m/s], the sideways slip speed of the blade:
  /// (-sin(theta) p1 + cos(theta) p2) / m - a theta'.
  template <class VQ, class VP>
  double constraint_value(const VQ& q, const VP& p) const {
    const auto [s, c] = dmath::sincos(q(2));
    const double w = (p(2) + a_ * (s * p(0) - c * p(1))) / j_;
    return (-s * p(0) + c * p(1)) / m_ - a_ * w;
  }

  /// |mu(q) M^-1 p| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- reduced form on D*, eq. (7)-(9), (16), (22) ----

  /// rho = X(q)^T p, eq. (16b): rho1 = p3 / sqrt(I), rho2 = (cos(theta) p1 + sin(theta) p2) /
  /// sqrt(m). p of length 3, rho of length 2.
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& q, const VP& p, Out& rho) const {
    const auto [s, c] = dmath::sincos(q(2));
    const double p0 = p(0), p1 = p(1), p2 = p(2);
    rho(0) = p2 / si_;
    rho(1) = (c * p0 + s * p1) / sm_;
  }

  /// p = M(q) X(q) rho (g_ab = identity), eq. (16a); satisfies the constraint up to round-off.
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& q, const VRho& rho, Out& p) const {
    const auto [s, c] = dmath::sincos(q(2));
    const double r1 = rho(0), r2 = rho(1);
    const double k = m_ * a_ * r1 / si_;
    p(0) = -k * s + sm_ * c * r2;
    p(1) = k * c + sm_ * s * r2;
    p(2) = si_ * r1;
  }

  /// H(zeta) = 1/2 (rho1^2 + rho2^2) [J], zeta of length 5.
  double reduced_hamiltonian(const VecZ& zeta) const {
    return 0.5 * (zeta(3) * zeta(3) + zeta(4) * zeta(4));
  }

  /// grad H(zeta) = (0, 0, 0, rho1, rho2) (§4.2).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    g.setZero();
    g(3) = zeta(3);
    g(4) = zeta(4);
  }

  /// out = Pi(zeta) v with Pi(theta, rho1) as printed in §4.2; v of length 5.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    const auto [sin_theta, cos_theta] = dmath::sincos(zeta(2));
    const T c = cos_theta / sm_, s = sin_theta / sm_;
    const T k = c_ * zeta(3);
    const T v0 = v(0), v1 = v(1), v2 = v(2), v3 = v(3), v4 = v(4);
    out(0) = c * v4;
    out(1) = s * v4;
    out(2) = v3 / si_;
    out(3) = -v2 / si_ - k * v4;
    out(4) = -c * v0 - s * v1 + k * v3;
  }

  /// f(zeta) = Pi(zeta) grad H(zeta), the reduced vector field eq. (9): the position equations
  /// of §4.2 and eq. (22).
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    reduced_gradient(zeta, grad_ws);
    apply_pi(zeta, grad_ws, out);
  }

 private:
  double j_, a_, m_, i_, si_, sm_, c_;
};

}  // namespace nhsim

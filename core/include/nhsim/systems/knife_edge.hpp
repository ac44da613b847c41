// The knife edge with potential x/2 and its perturbation, [AnahorySimoes2022] Example 4 and Example
// 5 (Figs. 5-6). One system with the parameter epsilon: epsilon = 0 is Example 4, epsilon = 0.1 the
// perturbed knife edge of Fig. 6.
//
// q = (x, y, phi): contact point (x, y) [m], blade angle phi [rad]. (The paper lists the
// coordinates as (x, y, phi) in L and as (x, phi, y) in H|D* and in the captions of Figs. 5-6,
// "q1 = (0.4, 0.4, y1)": x1 = phi1 = 0.4, y1 from the discrete constraint.)
//   L = 1/2 (x'^2 + y'^2 + phi'^2) + x/2,   i.e. M = identity, V(q) = -x/2,
//   constraint sin(phi) x' - (cos(phi) - epsilon) y' = 0,   mu(q) = (sin phi, -(cos phi - eps), 0).
// Lagrange-d'Alembert: x'' = 1/2 + lambda sin(phi), y'' = -lambda (cos(phi) - eps), phi'' = 0,
//   lambda = -[phi' (cos(phi) x' + sin(phi) y') + sin(phi)/2] / r(phi)^2,
//   r(phi)^2 = sin^2(phi) + (cos(phi) - eps)^2 = 1 - 2 eps cos(phi) + eps^2   (> 0 for |eps| < 1),
// (for eps = 0 this is the lambda printed in Example 4, evaluated there at the midpoint).
//
// Reduced form on D*: the paper's H|D* uses the frame e1 = d/dx + sin(phi) / (cos(phi) - eps)
// d/dy, e2 = d/dphi (A(phi, eps) = |e1|^2), which is singular where cos(phi) = eps; phi rotates
// through it in Figs. 5-6. nhsim uses the orthonormal (M = identity) global frame
//   X1 = ((cos phi - eps) d/dx + sin(phi) d/dy) / r(phi),   X2 = d/dphi,   g_ab = identity,
//   rho = X^T p,  p = X rho,  H(zeta) = 1/2 (rho1^2 + rho2^2) - x/2,
// which spans the same D (rho1 = p1 / sqrt(A) of the paper). [X1, X2] = -dX1/dphi is orthogonal
// to X1 (|X1| = 1) and to X2, so its projection onto D vanishes: C = 0 and
//   Pi = [[0, X], [-X^T, 0]],   rho1' = (cos(phi) - eps) / (2 r),   rho2' = 0.
// Energy H is conserved by the continuous flow for every eps (the constraint is linear).
//
// MLA discretisation, Example 4 (used by the `mla` integrator, [AnahorySimoes2022] eq. (41)-(42)),
// with qbar = (q0 + q1) / 2, d. = (.)1 - (.)0, sb = sin(phibar), cb = cos(phibar):
//   L_d = 1/(2h) |q1 - q0|^2 + h (x1 + x0) / 4,
//   M^d_h: sb dx - (cb - eps) dy = 0,
//   F_d^{+/-} = (h/2) lambda_d (mu_x dx_{1/0} + mu_y dy_{1/0}),  mu_x = sb, mu_y = -(cb - eps),
//   lambda_d = -[dphi / h^2 (dx cb + dy sb) + sb / 2] / (sb^2 + (cb - eps)^2).
// Choices and corrections (documented deviations from the printed text):
//   * The paper prints mu_y = +cos(phibar). That is a sign typo: F_d^{+/-} discretise the
//     nonholonomic force lambda mu(q) (Remark 2.2), mu = (sin phi, -cos phi, 0) for the printed
//     constraint, and the printed lambda is exactly the continuous multiplier of that mu (it is
//     -lambda for the printed +cos). With +cos the force has an O(1) component sin(2 phi)
//     lambda h/2 along the blade instead of an O(h) one. nhsim uses mu_y = -(cb - eps).
//   * Example 5 only names the perturbed constraint; its discretisation here is the one of
//     Example 4 with the perturbed mu and the perturbed multiplier (division by r(phibar)^2,
//     which is 1 for eps = 0), so that eps = 0 is Example 4 exactly.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The (perturbed) knife edge of [AnahorySimoes2022] Examples 4-5. Fixed sizes: q, p in R^3, rho in
/// R^2, zeta in R^5, one constraint. Parameter epsilon [1] (dimensionless), |epsilon| <= 0.9 and
/// finite, else the constructor throws std::invalid_argument (r(phi) >= 1 - |eps| keeps the
/// frame regular). Paper values: 0 (Example 4, Fig. 5) and 0.1 (Example 5, Fig. 6).
class KnifeEdge : public ReducedTypes<3, 1, 2>, public IdentityMass {
 public:
  static constexpr bool kHasReducedForm = true;
  /// mla_legendre_minus/plus and mla_discrete_constraint are Examples 4-5 (integrator `mla`).
  static constexpr bool kHasMlaDiscretisation = true;

  /// epsilon [1]: the perturbation of the constraint, |epsilon| <= 0.9, finite.
  explicit KnifeEdge(double epsilon = 0.0) : eps_(epsilon) {
    if (!std::isfinite(epsilon) || std::abs(epsilon) > 0.9) {
      throw std::invalid_argument("knife edge: epsilon must be finite with |epsilon| <= 0.9");
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  int nr() const { return NR; }
  int nz() const { return NZ; }
  double epsilon() const { return eps_; }

  // ---- canonical form: H(q, p) = 1/2 |p|^2 - x/2 ----

  /// V(q) = -x/2 [J].
  template <class VQ>
  double potential(const VQ& q) const {
    return -0.5 * q(0);
  }

  /// dV/dq = (-1/2, 0, 0).
  template <class VQ, class Out>
  void grad_potential(const VQ& /*q*/, Out& g) const {
    g(0) = -0.5;
    g(1) = 0.0;
    g(2) = 0.0;
  }

  /// H(q, p) = 1/2 |p|^2 - x/2 [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return 0.5 * (p(0) * p(0) + p(1) * p(1) + p(2) * p(2)) - 0.5 * q(0);
  }

  /// mu(q) = (sin phi, -(cos phi - eps), 0), 1 x 3 (q may be complex: complex step).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    const auto [s, c] = dmath::sincos(q(2));
    mu(0, 0) = s;
    mu(0, 1) = eps_ - c;
    mu(0, 2) = 0.0;
  }

  /// mu(q) M^-1 p = sin(phi) x' - (cos(phi) - eps) y' [m/s].
  template <class VQ, class VP>
  typename VP::Scalar constraint_value(const VQ& q, const VP& p) const {
    const auto [s, c] = dmath::sincos(q(2));
    return s * p(0) - (c - eps_) * p(1);
  }

  /// |sin(phi) x' - (cos(phi) - eps) y'| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- reduced form on D* (orthonormal frame, file comment) ----

  /// rho = X^T p: rho1 = ((cos phi - eps) p_x + sin(phi) p_y) / r, rho2 = p_phi.
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& q, const VP& p, Out& rho) const {
    double u1, u2;
    blade(q(2), u1, u2);
    const double p0 = p(0), p1 = p(1), p2 = p(2);
    rho(0) = u1 * p0 + u2 * p1;
    rho(1) = p2;
  }

  /// p = X rho = (rho1 u1, rho1 u2, rho2), u = X1's (x, y) part; satisfies the constraint.
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& q, const VRho& rho, Out& p) const {
    double u1, u2;
    blade(q(2), u1, u2);
    const double r1 = rho(0), r2 = rho(1);
    p(0) = r1 * u1;
    p(1) = r1 * u2;
    p(2) = r2;
  }

  /// H(zeta) = 1/2 (rho1^2 + rho2^2) - x/2 [J], zeta = (x, y, phi, rho1, rho2).
  double reduced_hamiltonian(const VecZ& zeta) const {
    return 0.5 * (zeta(3) * zeta(3) + zeta(4) * zeta(4)) - 0.5 * zeta(0);
  }

  /// grad H(zeta) = (-1/2, 0, 0, rho1, rho2).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    g.setZero();
    g(0) = -0.5;
    g(3) = zeta(3);
    g(4) = zeta(4);
  }

  /// out = Pi(zeta) v, Pi = [[0, X], [-X^T, 0]]; v of length 5.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    T u1, u2;
    blade(zeta(2), u1, u2);
    const T v0 = v(0), v1 = v(1), v2 = v(2), v3 = v(3), v4 = v(4);
    out(0) = u1 * v3;
    out(1) = u2 * v3;
    out(2) = v4;
    out(3) = -u1 * v0 - u2 * v1;
    out(4) = -v2;
  }

  /// f(zeta) = Pi(zeta) grad H(zeta).
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    reduced_gradient(zeta, grad_ws);
    apply_pi(zeta, grad_ws, out);
  }

  // ---- MLA discretisation of Examples 4-5 ([AnahorySimoes2022] eq. (41)-(42)), file comment ----

  /// F^{f-} L_d(q0, q1) = -D1 L_d - F_d^- = dq/h - (h/4) dx - (h/2) lambda_d mu_bar (length 3).
  template <class VQ0, class VQ1, class Out>
  void mla_legendre_minus(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    mla_legendre(q0, q1, h, -1.0, out);
  }

  /// F^{f+} L_d(q0, q1) = D2 L_d + F_d^+ = dq/h + (h/4) dx + (h/2) lambda_d mu_bar (length 3).
  template <class VQ0, class VQ1, class Out>
  void mla_legendre_plus(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    mla_legendre(q0, q1, h, 1.0, out);
  }

  /// The discrete constraint M^d_h: (sin(phibar) dx - (cos(phibar) - eps) dy) / h (length 1).
  template <class VQ0, class VQ1, class Out>
  void mla_discrete_constraint(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    const double pb = 0.5 * (q0(2) + q1(2));
    const auto [sb, cb] = dmath::sincos(pb);
    out(0) = (sb * (q1(0) - q0(0)) - (cb - eps_) * (q1(1) - q0(1))) / h;
  }

 private:
  /// (u1, u2) = ((cos phi - eps), sin phi) / r(phi): the (x, y) part of X1.
  template <class T>
  void blade(const T& phi, T& u1, T& u2) const {
    const auto [s, cos_phi] = dmath::sincos(phi);
    const T c = cos_phi - eps_;
    const T r = dmath::sqrt(c * c + s * s);
    u1 = c / r;
    u2 = s / r;
  }

  template <class VQ0, class VQ1, class Out>
  void mla_legendre(const VQ0& q0, const VQ1& q1, double h, double sign, Out& out) const {
    const double dx = q1(0) - q0(0), dy = q1(1) - q0(1), dphi = q1(2) - q0(2);
    const double pb = 0.5 * (q0(2) + q1(2));
    const auto [sb, cb] = dmath::sincos(pb);
    const double ce = cb - eps_;
    const double lam = -(dphi / (h * h) * (dx * cb + dy * sb) + 0.5 * sb) / (sb * sb + ce * ce);
    const double f = sign * 0.5 * h * lam;
    out(0) = dx / h + sign * 0.25 * h + f * sb;
    out(1) = dy / h - f * ce;
    out(2) = dphi / h;
  }

  double eps_;
};

}  // namespace nhsim

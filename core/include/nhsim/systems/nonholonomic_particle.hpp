// The nonholonomic particle on Q = R^3, [AnahorySimoes2022] Example 1-3, eq. (18)-(20), (25), (43).
//
// q = (x, y, z) [m], L = 1/2 (x'^2 + y'^2 + z'^2), V = 0, M = identity, constraint
// z' - y x' = 0, i.e. mu(q) = (-y, 0, 1) (the one-form dz - y dx of Example 1). Equations of
// motion eq. (18): x'' = -y x' y' / (1 + y^2), y'' = 0, z'' = x' y' / (1 + y^2), with the
// multiplier lambda = x' y' / (1 + y^2) (z'' = lambda).
//
// Reduced form on D* ([Celledoni2019] eq. (7)-(9), (16)) in the frame of Example 3,
//   X1 = e1 = d/dx + y d/dz,   X2 = e2 = d/dy,   g_ab = X^T M X = diag(1 + y^2, 1),
//   rho = X^T p:  rho1 = p_x + y p_z,  rho2 = p_y;   p = M X g^-1 rho (eq. 16a),
//   H(zeta) = 1/2 (rho1^2 / (1 + y^2) + rho2^2)        (the H|D* of Example 3),
//   Pi = [[0, X], [-X^T, B]],  B = [[0, b], [-b, 0]],  b = -C^1_12 rho1 = y rho1 / (1 + y^2).
// Derived here: [X1, X2] = -d/dz, whose orthogonal projection onto D is -y / (1 + y^2) X1, so
// C^1_12 = -y / (1 + y^2), C^2_12 = 0 (same convention as chaplygin_sleigh.hpp). Check against
// eq. (18): rho1 = x' (1 + y^2), rho1' = x'' (1 + y^2) + 2 y y' x' = y x' y' = y rho1 rho2 /
// (1 + y^2) = b rho2, rho2' = y'' = 0 = -dH/dy - b dH/drho1 (dH/dy = -y rho1^2 / (1 + y^2)^2).
//
// Closed-form flow, eq. (19) (y'0 != 0) and eq. (20) (y'0 = 0). Along the flow
// k := x' sqrt(1 + y^2) = rho1 / sqrt(1 + y^2) is constant (from x''/x' = -y y' / (1 + y^2)), so
// with a = y(t) = y0 + y'0 t, b = y0, c_a = sqrt(1 + a^2), c_b = sqrt(1 + b^2):
//   x(t) = x0 + k (asinh(a) - asinh(b)) / y'0,   z(t) = z0 + k (c_a - c_b) / y'0,
//   rho1(t) = k c_a,   rho2(t) = rho2,
// which is eq. (19) (x'0 / y'0 sqrt(y0^2 + 1) = k / y'0). exact_flow() evaluates these without
// the cancellation of the printed differences for small y'0 t (see there) and uses eq. (20)
// verbatim when y'0 = 0.
//
// Exact discrete constraint eq. (25): (q0, q1) lies on the exact discrete constraint
// submanifold M^{e,nh}_h iff mu_d = (z1 - z0) / h - (x1 - x0) (sqrt(y1^2 + 1) -
// sqrt(y0^2 + 1)) / (h (asinh(y1) - asinh(y0))) = 0 (see exact_discrete_constraint()).
//
// MLA discretisation of Example 3 (used by the `mla` integrator, [AnahorySimoes2022] eq.
// (41)-(42)):
//   L_d = 1/(2h) |q1 - q0|^2,   M^d_h: z1 = z0 + (y1 + y0)/2 (x1 - x0)   (eq. (43)),
//   F_d^{+/-} = (2/h) c (-(y1 + y0)/2 dx_{1/0} + dz_{1/0}),  c = (x1 - x0)(y1 - y0) /
//   (4 + (y1 + y0)^2),
// i.e. (h/2) lambda(qbar, dq/h) mu(qbar) with the continuous multiplier of eq. (18); the forced
// discrete Legendre transforms F^{f-} L_d, F^{f+} L_d are the printed ones of Example 3.
#pragma once

#include <Eigen/Dense>
#include <cmath>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The nonholonomic particle of [AnahorySimoes2022] Example 1. Fixed sizes: q, p in R^3, rho in
/// R^2, zeta in R^5, one constraint. No parameters (the paper's Lagrangian has unit masses).
class NonholonomicParticle : public ReducedTypes<3, 1, 2>,
                             public ZeroPotential,
                             public IdentityMass {
 public:
  static constexpr bool kHasReducedForm = true;
  /// exact_flow() is eq. (19)-(20) (integrator `exact`).
  static constexpr bool kHasExactFlow = true;
  /// mla_legendre_minus/plus and mla_discrete_constraint are Example 3 (integrator `mla`).
  static constexpr bool kHasMlaDiscretisation = true;

  int nq() const { return NQ; }
  int nc() const { return NC; }
  int nr() const { return NR; }
  int nz() const { return NZ; }

  // ---- canonical form: H(q, p) = 1/2 |p|^2, Example 1 ----

  /// H(q, p) = 1/2 |p|^2 [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& /*q*/, const VP& p) const {
    return 0.5 * (p(0) * p(0) + p(1) * p(1) + p(2) * p(2));
  }

  /// Constraint one-form mu(q) = dz - y dx = (-y, 0, 1), 1 x 3 (q may be complex: gonzalez_r
  /// differentiates mu by the complex step).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu(0, 0) = -q(1);
    mu(0, 1) = 0.0;
    mu(0, 2) = 1.0;
  }

  /// mu(q) M^-1 p = z' - y x' [m/s].
  template <class VQ, class VP>
  typename VP::Scalar constraint_value(const VQ& q, const VP& p) const {
    return p(2) - q(1) * p(0);
  }

  /// |z' - y x'| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- reduced form on D* (frame of Example 3) ----

  /// rho = X^T p: rho1 = p_x + y p_z, rho2 = p_y.
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& q, const VP& p, Out& rho) const {
    const double p0 = p(0), p1 = p(1), p2 = p(2);
    rho(0) = p0 + q(1) * p2;
    rho(1) = p1;
  }

  /// p = M X g^-1 rho = (u, rho2, y u), u = rho1 / (1 + y^2); satisfies the constraint exactly.
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& q, const VRho& rho, Out& p) const {
    const double y = q(1);
    const double u = rho(0) / (1.0 + y * y);
    const double r2 = rho(1);
    p(0) = u;
    p(1) = r2;
    p(2) = y * u;
  }

  /// H(zeta) = 1/2 (rho1^2 / (1 + y^2) + rho2^2) [J], zeta = (x, y, z, rho1, rho2).
  double reduced_hamiltonian(const VecZ& zeta) const {
    return 0.5 * (zeta(3) * zeta(3) / (1.0 + zeta(1) * zeta(1)) + zeta(4) * zeta(4));
  }

  /// grad H(zeta) = (0, -y rho1^2 / (1 + y^2)^2, 0, rho1 / (1 + y^2), rho2).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    using T = typename VZ::Scalar;
    const T y = zeta(1), s = 1.0 / (1.0 + y * y);
    const T u = zeta(3) * s;
    g.setZero();
    g(1) = -y * u * u;
    g(3) = u;
    g(4) = zeta(4);
  }

  /// out = Pi(zeta) v, Pi = [[0, X], [-X^T, B]] (file comment); v of length 5.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    const T y = zeta(1);
    const T b = y * zeta(3) / (1.0 + y * y);
    const T v0 = v(0), v1 = v(1), v2 = v(2), v3 = v(3), v4 = v(4);
    out(0) = v3;
    out(1) = v4;
    out(2) = y * v3;
    out(3) = -v0 - y * v2 + b * v4;
    out(4) = -v1 - b * v3;
  }

  /// f(zeta) = Pi(zeta) grad H(zeta), the reduced form of eq. (18).
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    reduced_gradient(zeta, grad_ws);
    apply_pi(zeta, grad_ws, out);
  }

  /// The closed-form flow eq. (19)-(20) over time t [s] (any sign), in reduced coordinates:
  /// zeta = (x0, y0, z0, rho1, rho2) -> zeta(t); out may alias zeta. With d = y'0 t = rho2 t,
  /// a = y0 + d, b = y0, c_a, c_b as in the file comment:
  ///   asinh(a) - asinh(b) = asinh(s),  s = d w,  w = (1 + c_a c_b - a b) / (c_a + c_b) > 0
  ///     (sinh(A - B) = a c_b - b c_a = d w, exact algebra), and
  ///   c_a - c_b = d (a + b) / (c_a + c_b),
  /// so x(t) = x0 + k t w asinhc(s), z(t) = z0 + k t (a + b) / (c_a + c_b), asinhc(s) =
  /// asinh(s) / s (1 - s^2/6 for |s| < 1e-4), without cancellation for small d. For rho2 = 0
  /// (y'0 = 0) eq. (20) is used as printed: x = x0 + x'0 t, y = y0, z = z0 + y0 x'0 t.
  template <class Out>
  void exact_flow(const VecZ& zeta, double t, Out& out) const {
    const double x0 = zeta(0), y0 = zeta(1), z0 = zeta(2), rho1 = zeta(3), rho2 = zeta(4);
    if (rho2 == 0.0) {  // eq. (20)
      const double xd0 = rho1 / (1.0 + y0 * y0);
      out(0) = x0 + xd0 * t;
      out(1) = y0;
      out(2) = z0 + y0 * xd0 * t;
      out(3) = rho1;
      out(4) = rho2;
      return;
    }
    const double d = rho2 * t;
    const double a = y0 + d, b = y0;
    const double ca = std::sqrt(1.0 + a * a), cb = std::sqrt(1.0 + b * b);
    const double k = rho1 / cb;
    // ca cb - a b >= 0, written without cancellation when a b > 0.
    const double cab = a * b > 0.0 ? (1.0 + a * a + b * b) / (ca * cb + a * b) : ca * cb - a * b;
    const double w = (1.0 + cab) / (ca + cb);
    const double s = d * w;
    const double asinhc = std::abs(s) < 1e-4 ? 1.0 - s * s / 6.0 : dmath::asinh(s) / s;
    out(0) = x0 + k * t * w * asinhc;
    out(1) = a;
    out(2) = z0 + k * t * (a + b) / (ca + cb);
    out(3) = k * ca;
    out(4) = rho2;
  }

  /// The exact discrete constraint eq. (25), mu_d(q0, q1) [m/s]: zero iff (q0, q1) lies on the
  /// exact discrete constraint submanifold M^{e,nh}_h (the pairs (q(0), q(h)) of a trajectory).
  /// The quotient (sqrt(y1^2 + 1) - sqrt(y0^2 + 1)) / (asinh(y1) - asinh(y0)) is evaluated as in
  /// exact_flow() (no cancellation); its limit for y1 = y0 is y0 (then mu_d = (dz - y0 dx) / h,
  /// the constraint of eq. (20)). h > 0.
  template <class VQ0, class VQ1>
  double exact_discrete_constraint(const VQ0& q0, const VQ1& q1, double h) const {
    const double a = q1(1), b = q0(1), d = a - b;
    double quot = b;
    if (d != 0.0) {
      const double ca = std::sqrt(1.0 + a * a), cb = std::sqrt(1.0 + b * b);
      const double cab = a * b > 0.0 ? (1.0 + a * a + b * b) / (ca * cb + a * b) : ca * cb - a * b;
      const double w = (1.0 + cab) / (ca + cb);
      const double s = d * w;
      const double asinhc = std::abs(s) < 1e-4 ? 1.0 - s * s / 6.0 : dmath::asinh(s) / s;
      // (c_a - c_b) / asinh(s) = [d (a + b) / (c_a + c_b)] / [d w asinhc(s)]
      quot = (a + b) / ((ca + cb) * w * asinhc);
    }
    return ((q1(2) - q0(2)) - (q1(0) - q0(0)) * quot) / h;
  }

  // ---- MLA discretisation of Example 3 ([AnahorySimoes2022] eq. (41)-(43)) ----

  /// F^{f-} L_d(q0, q1) = -D1 L_d - F_d^- in T*_{q0} Q (length 3), as printed in Example 3:
  /// (dx/h + (2/h) c ybar, dy/h, dz/h - (2/h) c), c = dx dy / (4 + (y1 + y0)^2), ybar = (y0 +
  /// y1) / 2, d. = (.)1 - (.)0.
  template <class VQ0, class VQ1, class Out>
  void mla_legendre_minus(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    mla_legendre(q0, q1, h, -1.0, out);
  }

  /// F^{f+} L_d(q0, q1) = D2 L_d + F_d^+ in T*_{q1} Q (length 3), as printed in Example 3:
  /// (dx/h - (2/h) c ybar, dy/h, dz/h + (2/h) c).
  template <class VQ0, class VQ1, class Out>
  void mla_legendre_plus(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    mla_legendre(q0, q1, h, 1.0, out);
  }

  /// The discrete constraint M^d_h of eq. (43), (dz - ybar dx) / h [m/s] (length 1).
  template <class VQ0, class VQ1, class Out>
  void mla_discrete_constraint(const VQ0& q0, const VQ1& q1, double h, Out& out) const {
    out(0) = ((q1(2) - q0(2)) - 0.5 * (q0(1) + q1(1)) * (q1(0) - q0(0))) / h;
  }

 private:
  template <class VQ0, class VQ1, class Out>
  static void mla_legendre(const VQ0& q0, const VQ1& q1, double h, double sign, Out& out) {
    const double dx = q1(0) - q0(0), dy = q1(1) - q0(1), dz = q1(2) - q0(2);
    const double sy = q0(1) + q1(1);
    const double f = sign * (2.0 / h) * dx * dy / (4.0 + sy * sy);
    out(0) = dx / h - 0.5 * sy * f;
    out(1) = dy / h;
    out(2) = dz / h + f;
  }
};

}  // namespace nhsim

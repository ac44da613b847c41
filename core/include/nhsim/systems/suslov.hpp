// The Euler-Poincaré-Suslov problem on so(3), [Celledoni2019] §4.3.
//
// A rigid body with body angular velocity omega in so(3) ~ R^3 and the kinetic Lagrangian of
// §4.3, L = 1/2 omega^T I omega, with the inertia tensor (frame chosen so that I12 = 0)
//   I = [[I11, 0, I13], [0, I22, I23], [I13, I23, I33]]   [kg m^2],
// under the nonholonomic constraint a . omega = 0 with a = e3, i.e. omega3 = 0. The paper gives
// no numbers; the defaults here are I11 = 2, I22 = 3, I33 = 4, I13 = 0.5, I23 = 0.3 (leading
// minors 2, 6, det I = I11 I22 I33 - I11 I23^2 - I22 I13^2 = 23.07: positive definite, and
// I13, I23 != 0 so both structure constants below are non-zero: non-degenerate).
//
// Equations of motion (Euler-Poincaré-Suslov, body frame, M = I omega the body angular
// momentum, bracket [xi, eta] = xi x eta as in §4.3):
//   M' = M x omega + lambda e3,   omega3 = (I^-1 M)_3 = 0,
// lambda the constraint multiplier. The reduced form is the one of §4.3: with the adapted basis
// X1 = e1, X2 = e2 of D = {omega3 = 0} and rho_a = <M, X_a> (eq. (16b)), i.e. rho = (M1, M2),
//   H(rho) = 1/2 (rho1^2 / I11 + rho2^2 / I22),
//   C^1_12 = I13 / I11,   C^2_12 = I23 / I22   (the projected bracket of §4.3),
//   (rho1', rho2')^T = -[[0, c], [-c, 0]] (rho1 / I11, rho2 / I22)^T,  c = C^1_12 rho1 +
//   C^2_12 rho2,
// the matrix equation of §4.3 (from rho_a' = -C^c_ab rho_c dH/drho_b, eq. (7b)). On D,
// M3 = I13 omega1 + I23 omega2 = c, so this is M1' = -M3 omega2, M2' = M3 omega1: the first two
// rows of M' = M x omega with omega3 = 0.
//
// Fitting the (q, p) / zeta = (q, rho) concept of nhsim. so(3) has no configuration variables
// (§4.3: "there are no (q^i) variables"), but our types need NQ = dim p = 3:
//   * p = M = I omega in R^3, the body angular momentum; the "mass matrix" is the constant
//     inertia tensor I, so H(q, p) = 1/2 p^T I^-1 p, inv_mass_times gives omega, and the
//     constraint one-form is mu = e3^T, mu I^-1 p = omega3. mass_matrix_dyn and constraint are
//     therefore what the energy-shell generator needs: it draws v = omega, projects it
//     I-orthogonally onto {omega3 = 0}, and sets p = s I v.
//   * q in R^3 is a placeholder carried along unchanged (q' = 0): it enters neither H nor mu
//     nor Pi. zeta = (q1, q2, q3, rho1, rho2), NZ = 5, with zero q rows and columns in Pi.
//   * from_reduced: p = I X g^-1 rho = (rho1, rho2, c) (omega = (rho1 / I11, rho2 / I22, 0));
//     to_reduced: rho = (p1, p2).
// The canonical integrators (si_dla, i_dla, gonzalez_f) integrate p' = -dH/dq + mu^T lambda,
// which here would be p' = lambda e3: they miss the Lie-Poisson term M x omega and would
// integrate a DIFFERENT system. They must be refused, which is done by kConstantMass = false
// (their kApplies requires a constant mass matrix) although I is constant. Any future
// integrator that uses only canonical data (M, V, mu, dmu/dq) must also be refused for this
// system: see kHasCanonicalForm.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/system_types.hpp"

namespace nhsim {

/// Euler-Poincaré-Suslov problem on so(3) ([Celledoni2019] §4.3). Fixed sizes: q, p in R^3 (q a
/// placeholder, p = I omega), rho in R^2, zeta in R^5, one constraint (omega3 = 0).
/// Parameters I11, I22, I33 [kg m^2] > 0 and I13, I23 [kg m^2], all finite, with I positive
/// definite (det I > 0), else the constructor throws std::invalid_argument.
class Suslov : public ReducedTypes<3, 1, 2>, public ZeroPotential {
 public:
  /// I is constant, but false on purpose: the methods gated on a constant mass matrix (si_dla,
  /// i_dla, gonzalez_f) integrate the canonical equations p' = -dH/dq + mu^T lambda, which miss
  /// the Lie-Poisson term M x omega of §4.3; they would integrate a different system.
  static constexpr bool kConstantMass = false;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = true;
  /// The (q, p) data are an embedding for observables and initial conditions, not a
  /// Hamiltonian system on T*Q: canonical-only integrators must not run on it.
  static constexpr bool kHasCanonicalForm = false;

  /// Inertia entries [kg m^2] of §4.3 with I12 = 0; I11, I22, I33 > 0, det I > 0, all finite.
  Suslov(double i11, double i22, double i33, double i13, double i23) : i11_(i11), i22_(i22) {
    const bool finite = std::isfinite(i11) && std::isfinite(i22) && std::isfinite(i33) &&
                        std::isfinite(i13) && std::isfinite(i23);
    if (!finite || !(i11 > 0.0) || !(i22 > 0.0) || !(i33 > 0.0)) {
      throw std::invalid_argument("suslov: I11, I22, I33 must be finite and > 0, I13, I23 finite");
    }
    const double det = i11 * i22 * i33 - i11 * i23 * i23 - i22 * i13 * i13;
    // Sylvester (I12 = 0): I11 > 0, I11 I22 > 0, det I > 0; det relative to I11 I22 I33 so that a
    // numerically singular I is refused too.
    if (!(det > 1e-12 * i11 * i22 * i33)) {
      throw std::invalid_argument(
          "suslov: the inertia tensor must be positive definite (I11 I22 I33 - I11 I23^2 - I22 "
          "I13^2 > 0)");
    }
    inertia_ << i11, 0.0, i13, 0.0, i22, i23, i13, i23, i33;
    inv_inertia_ = inertia_.inverse();
    c1_ = i13 / i11;
    c2_ = i23 / i22;
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  int nr() const { return NR; }
  int nz() const { return NZ; }

  /// The inertia tensor I of §4.3 (I12 = 0) [kg m^2].
  const Eigen::Matrix3d& inertia() const { return inertia_; }
  /// C^1_12 = I13 / I11 and C^2_12 = I23 / I22, the structure constants of §4.3.
  double c112() const { return c1_; }
  double c212() const { return c2_; }

  // ---- canonical embedding: p = M = I omega, H = 1/2 p^T I^-1 p, mu = e3^T (see above) ----

  /// omega = I^-1 p [rad/s] (length 3).
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    const Eigen::Vector3d pp(p(0), p(1), p(2));
    const Eigen::Vector3d w = inv_inertia_ * pp;
    v(0) = w(0);
    v(1) = w(1);
    v(2) = w(2);
  }

  /// The inertia tensor I, 3 x 3 (the metric of §4.3).
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    return inertia_;
  }

  /// H = 1/2 p^T I^-1 p = 1/2 omega^T I omega [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    VecQ w;
    inv_mass_times(q, p, w);
    return 0.5 * (p(0) * w(0) + p(1) * w(1) + p(2) * w(2));
  }

  /// mu = a^T = e3^T (1 x 3), §4.3.
  template <class VQ, class Out>
  void constraint(const VQ& /*q*/, Out& mu) const {
    mu(0, 0) = 0.0;
    mu(0, 1) = 0.0;
    mu(0, 2) = 1.0;
  }

  /// mu I^-1 p = omega3 [rad/s].
  template <class VQ, class VP>
  double constraint_value(const VQ& /*q*/, const VP& p) const {
    return inv_inertia_(2, 0) * p(0) + inv_inertia_(2, 1) * p(1) + inv_inertia_(2, 2) * p(2);
  }

  /// |omega3| [rad/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- reduced form, §4.3 (eq. (7b), (16)) ----

  /// rho_a = <p, X_a>, eq. (16b), X1 = e1, X2 = e2: rho = (M1, M2).
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& /*q*/, const VP& p, Out& rho) const {
    rho(0) = p(0);
    rho(1) = p(1);
  }

  /// p = I X g^-1 rho, eq. (16a): omega = (rho1 / I11, rho2 / I22, 0),
  /// p = (rho1, rho2, C^1_12 rho1 + C^2_12 rho2); omega3 = 0 up to round-off.
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& /*q*/, const VRho& rho, Out& p) const {
    const double r1 = rho(0), r2 = rho(1);
    p(0) = r1;
    p(1) = r2;
    p(2) = c1_ * r1 + c2_ * r2;
  }

  /// H(zeta) = 1/2 (rho1^2 / I11 + rho2^2 / I22) [J] (§4.3), zeta = (q, rho).
  double reduced_hamiltonian(const VecZ& zeta) const {
    return 0.5 * (zeta(3) * zeta(3) / i11_ + zeta(4) * zeta(4) / i22_);
  }

  /// grad H(zeta) = (0, 0, 0, rho1 / I11, rho2 / I22).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    g.setZero();
    g(3) = zeta(3) / i11_;
    g(4) = zeta(4) / i22_;
  }

  /// out = Pi(zeta) v: zero q rows and columns (q' = 0), and on rho the matrix of §4.3,
  /// -[[0, c], [-c, 0]], c = C^1_12 rho1 + C^2_12 rho2. v of length 5.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    const T c = c1_ * zeta(3) + c2_ * zeta(4);
    const T v3 = v(3), v4 = v(4);
    out(0) = 0.0;
    out(1) = 0.0;
    out(2) = 0.0;
    out(3) = -c * v4;
    out(4) = c * v3;
  }

  /// f(zeta) = Pi(zeta) grad H(zeta), eq. (9): the reduced equations of §4.3,
  /// rho1' = -c rho2 / I22, rho2' = c rho1 / I11.
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    reduced_gradient(zeta, grad_ws);
    apply_pi(zeta, grad_ws, out);
  }

 private:
  double i11_, i22_;
  double c1_ = 0.0, c2_ = 0.0;
  Eigen::Matrix3d inertia_;
  Eigen::Matrix3d inv_inertia_;
};

}  // namespace nhsim

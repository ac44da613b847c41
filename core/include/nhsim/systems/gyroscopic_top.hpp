// Gyroscopic top in director coordinates, [Kinon2023] §5.1, eq. (58)-(69), Fig. 2-10.
//
// q = (phi, d1, d2, d3) in R^12: centre of mass phi [m] and the three body-fixed directors d_i
// (dimensionless, principal axes), eq. (59). Constant, diagonal mass matrix eq. (60)
//   M = diag(m I, E1 I, E2 I, E3 I),   E_i = 1/2 (J_j + J_k - J_i)  ((i, j, k) even permutations),
// potential eq. (63) V = -m b . phi = m g phi3 (gravity b = -g e3), and NG = 9 holonomic
// constraints: the six orthonormality conditions of eq. (61),
//   g1..3 = 1/2 (d_i . d_i - 1),  g4 = d1 . d2,  g5 = d1 . d3,  g6 = d2 . d3,
// and the three conditions of eq. (64) fixing the tip to the origin,
//   g7..9 = phi - l d3.
// Every g_k is quadratic, so its Hessian D^2 g_k is constant (ggl, [Kinon2023] eq. (41), uses
// holonomic_hessian_contract) and G(q) = Dg(q) is affine in q. The constraint one-forms of the
// canonical form are mu(q) = G(q) (NC = NG, no nonholonomic rows), so constraint_residual is the
// velocity-level residual max_k |(G(q) M^-1 p)_k| and every canonical-form integrator of nhsim
// can run the top (they keep only the velocity level: |g(q)| drifts).
//
// Observables (Fig. 3, 4, 10): "phi3" (height of the centre of mass [m], steady precession keeps
// it at l cos(alpha0) = 0.0375 m), "L3" (angular momentum about e3 [kg m^2/s]: the rotation
// about e3 is a symmetry, L = sum_a q_a x p_a over the four 3-vector blocks of (q, p), i.e.
// phi x m phi' + sum_i d_i x E_i d_i'), "kinetic_energy" and "potential_energy" [J].
//
// Initial data (eq. (65)-(68)): steady_precession_state() below.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "nhsim/dmath.hpp"
#include "nhsim/holonomic.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The gyroscopic top of [Kinon2023] §5.1. Fixed sizes: q, p in R^12, NG = NC = 9 holonomic
/// constraints. Parameters: m [kg] > 0, J1, J2, J3 [kg m^2] principal moments of inertia about
/// the centre of mass with every E_i = 1/2 (J_j + J_k - J_i) > 0, l [m] > 0 distance from the tip
/// to the centre of mass, g [m/s^2] >= 0 gravitational acceleration; all finite, else the
/// constructor throws std::invalid_argument.
class GyroscopicTop : public HolonomicTypes<12, 9, 9> {
 public:
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = false;
  /// Every g_k is quadratic in q: D^2 g_k constant (what ggl's Jacobian assumes).
  static constexpr bool kQuadraticHolonomic = true;

  /// m [kg], J1, J2, J3 [kg m^2], l [m], g [m/s^2]; see the class comment for the conditions.
  GyroscopicTop(double m, double j1, double j2, double j3, double l, double g)
      : m_(m), j_{j1, j2, j3}, l_(l), grav_(g) {
    const bool finite = std::isfinite(m) && std::isfinite(j1) && std::isfinite(j2) &&
                        std::isfinite(j3) && std::isfinite(l) && std::isfinite(g);
    e_[0] = 0.5 * (j2 + j3 - j1);
    e_[1] = 0.5 * (j3 + j1 - j2);
    e_[2] = 0.5 * (j1 + j2 - j3);
    if (!finite || !(m > 0.0) || !(l > 0.0) || !(g >= 0.0) || !(e_[0] > 0.0) || !(e_[1] > 0.0) ||
        !(e_[2] > 0.0)) {
      throw std::invalid_argument(
          "gyroscopic_top: m, J1, J2, J3, l, g must be finite, m > 0, l > 0, g >= 0, and every "
          "Euler-tensor value E_i = (J_j + J_k - J_i)/2 > 0");
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double m() const { return m_; }
  double l() const { return l_; }
  double gravity() const { return grav_; }
  /// J_i [kg m^2], i = 1, 2, 3.
  double inertia(int i) const { return j_[static_cast<std::size_t>(i - 1)]; }
  /// E_i [kg m^2] of eq. (60), i = 1, 2, 3.
  double euler(int i) const { return e_[static_cast<std::size_t>(i - 1)]; }
  /// Diagonal entry k of M (k = 0..11).
  double mass_diag(int k) const { return k < 3 ? m_ : e_[static_cast<std::size_t>(k / 3 - 1)]; }

  // ---- canonical form ----

  /// V(q) = m g phi3 [J], eq. (63).
  template <class VQ>
  double potential(const VQ& q) const {
    return m_ * grav_ * q(2);
  }

  /// grad V = (0, 0, m g, 0, ..., 0), length 12.
  template <class VQ, class Out>
  void grad_potential(const VQ& /*q*/, Out& gv) const {
    gv.setZero();
    gv(2) = m_ * grav_;
  }

  /// v = M^-1 p, length 12.
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    for (int k = 0; k < NQ; ++k) v(k) = p(k) / mass_diag(k);
  }

  /// M of eq. (60), 12 x 12.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    Eigen::MatrixXd mm = Eigen::MatrixXd::Zero(NQ, NQ);
    for (int k = 0; k < NQ; ++k) mm(k, k) = mass_diag(k);
    return mm;
  }

  /// H(q, p) = 1/2 p . M^-1 p + V(q) [J], eq. (7).
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return kinetic_energy(p) + potential(q);
  }

  /// T = 1/2 p . M^-1 p [J].
  template <class VP>
  double kinetic_energy(const VP& p) const {
    double t = 0.0;
    for (int k = 0; k < NQ; ++k) t += p(k) * p(k) / mass_diag(k);
    return 0.5 * t;
  }

  // ---- holonomic constraints ([Kinon2023] eq. (61), (64)) ----

  /// g(q), length 9: eq. (61) then eq. (64).
  template <class VQ, class Out>
  void holonomic_constraint(const VQ& q, Out& g) const {
    const auto d1 = q.template segment<3>(3);
    const auto d2 = q.template segment<3>(6);
    const auto d3 = q.template segment<3>(9);
    g(0) = 0.5 * (d1.dot(d1) - 1.0);
    g(1) = 0.5 * (d2.dot(d2) - 1.0);
    g(2) = 0.5 * (d3.dot(d3) - 1.0);
    g(3) = d1.dot(d2);
    g(4) = d1.dot(d3);
    g(5) = d2.dot(d3);
    for (int a = 0; a < 3; ++a) g(6 + a) = q(a) - l_ * q(9 + a);
  }

  /// G(q) = Dg(q), 9 x 12 (any scalar type: gonzalez_r takes dG/dq by complex step).
  template <class VQ, class Out>
  void holonomic_jacobian(const VQ& q, Out& gm) const {
    gm.setZero();
    for (int a = 0; a < 3; ++a) {
      gm(0, 3 + a) = q(3 + a);
      gm(1, 6 + a) = q(6 + a);
      gm(2, 9 + a) = q(9 + a);
      gm(3, 3 + a) = q(6 + a);
      gm(3, 6 + a) = q(3 + a);
      gm(4, 3 + a) = q(9 + a);
      gm(4, 9 + a) = q(3 + a);
      gm(5, 6 + a) = q(9 + a);
      gm(5, 9 + a) = q(6 + a);
      gm(6 + a, a) = 1.0;
      gm(6 + a, 9 + a) = -l_;
    }
  }

  /// Rows (D^2 g_k w)^T, 9 x 12: the constant constraint Hessians contracted with w. Since G is
  /// affine, this is G(q + w) - G(q) for any q; sum_k gamma_k D^2 g_k w = out^T gamma, and
  /// d/dt G(q(t)) = out for w = q'.
  template <class VW, class Out>
  void holonomic_hessian_contract(const VW& w, Out& out) const {
    out.setZero();
    for (int a = 0; a < 3; ++a) {
      out(0, 3 + a) = w(3 + a);
      out(1, 6 + a) = w(6 + a);
      out(2, 9 + a) = w(9 + a);
      out(3, 3 + a) = w(6 + a);
      out(3, 6 + a) = w(3 + a);
      out(4, 3 + a) = w(9 + a);
      out(4, 9 + a) = w(3 + a);
      out(5, 6 + a) = w(9 + a);
      out(5, 9 + a) = w(6 + a);
    }
  }

  /// mu(q) = G(q), 9 x 12 (holonomic rows only).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    holonomic_jacobian(q, mu);
  }

  /// d/dt mu(q(t)) for q' = v: D^2 g . v (constant Hessians), 9 x 12. Enables rk2.
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& /*q*/, const VV& v, Out& dmu) const {
    holonomic_hessian_contract(v, dmu);
  }

  /// max_k |(G(q) M^-1 p)_k|, the velocity-level residual (units of the g_k per second).
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return velocity_constraint_residual(*this, VecQ(q), VecQ(p));  // mu = G
  }

  // ---- observables ----

  static std::array<std::string, 4> observable_names() {
    return {"phi3", "L3", "kinetic_energy", "potential_energy"};
  }

  /// Observable k of observable_names(): phi3 = q(2) [m]; L3 = e3 . sum_a q_a x p_a
  /// [kg m^2/s]; T, V [J].
  template <class VQ, class VP>
  double observable(int k, const VQ& q, const VP& p) const {
    switch (k) {
      case 0:
        return q(2);
      case 1:
        return angular_momentum_e3(q, p);
      case 2:
        return kinetic_energy(p);
      default:
        return potential(q);
    }
  }

  /// L3 = e3 . (phi x p_phi + sum_i d_i x p_di) [kg m^2/s].
  template <class VQ, class VP>
  double angular_momentum_e3(const VQ& q, const VP& p) const {
    double l3 = 0.0;
    for (int b = 0; b < 4; ++b) l3 += q(3 * b) * p(3 * b + 1) - q(3 * b + 1) * p(3 * b);
    return l3;
  }

  // ---- initial data, eq. (65)-(68) ----

  /// Spin rate of steady precession, eq. (66) (Goldstein p. 221) [1/s]:
  ///   omega_s = m g l / (J3 omega_p) + (J1 + m l^2 - J3) / J3 omega_p cos(alpha0).
  /// omega_p [1/s] != 0, alpha0 [rad]. With the paper's data 135.607 (printed: 135.6).
  double steady_spin_rate(double alpha0, double omega_p) const {
    return m_ * grav_ * l_ / (j_[2] * omega_p) +
           (j_[0] + m_ * l_ * l_ - j_[2]) / j_[2] * omega_p * dmath::cos(alpha0);
  }

  /// Canonical state of eq. (65)-(68): directors d_i = R0 e_i with R0 the rotation by alpha0
  /// [rad] about e1 (eq. (67)), phi = l d3 (on the constraint (64)), angular velocity
  /// omega0 = omega_p e3 + omega_s d3 [1/s] (eq. (65)), velocities phi' = omega0 x phi,
  /// d_i' = omega0 x d_i (eq. (68)), p = M q'. Rigid velocities: G(q) M^-1 p = 0 up to round-off.
  void steady_precession_state(double alpha0, double omega_p, double omega_s, VecQ& q,
                               VecQ& p) const {
    const auto [s, c] = dmath::sincos(alpha0);
    const Eigen::Vector3d d1(1.0, 0.0, 0.0), d2(0.0, c, s), d3(0.0, -s, c);
    const Eigen::Vector3d w = omega_p * Eigen::Vector3d::UnitZ() + omega_s * d3;
    q << l_ * d3, d1, d2, d3;
    VecQ v;
    for (int b = 0; b < 4; ++b) {
      v.template segment<3>(3 * b) = w.cross(Eigen::Vector3d(q.template segment<3>(3 * b)));
    }
    for (int k = 0; k < NQ; ++k) p(k) = mass_diag(k) * v(k);
  }

 private:
  double m_;
  std::array<double, 3> j_;
  std::array<double, 3> e_{};
  double l_, grav_;
};

}  // namespace nhsim

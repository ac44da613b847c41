// The snakeboard, [Kobilarov2010] §6.2, eq. (34)-(35), Fig. 3-4, with control torques on the shape.
//
// q = (psi, phi, theta, x, y): rotor angle psi [rad], steering angle phi [rad] of the wheels
// (both wheel pairs turn by +-phi), board orientation theta [rad] and centre (x, y) [m]; Q =
// S^1 x S^1 x SE(2), shape r = (psi, phi), group G = SE(2). Parameters: m [kg] mass, l [m]
// distance from the centre to the wheels, I [kg m^2] rotor inertia, J [kg m^2] steering inertia
// of one wheel pair. The paper gives no numbers for Fig. 4; the defaults m = 1, l = 1, I = 0.5,
// J = 2 are ours (I < m l^2 keeps M positive definite). J matters: no constraint force acts on
// phi, so 2 J phi'' = u_phi exactly, and with u_phi = sin(2 pi t) the steering rate gains the
// mean (1 - cos 2 pi t) / (4 pi J) > 0; from phi(0) = pi/3, phi'(0) = -0.02 the angle stays below
// pi/2 over Fig. 4's 10 s only for J > 1.1022 (docs/experiments-seed002.md; J = 2:
// phi(10) ~ 1.25). At cos(phi) = 0 the distribution D drops rank (see below) and every method
// breaks down.
//   L = 1/2 q'^T M q',  V = 0,   M = [[I, 0, I, 0, 0], [0, 2J, 0, 0, 0], [I, 0, m l^2, 0, 0],
//                                     [0, 0, 0, m, 0], [0, 0, 0, 0, m]]         (§6.2, as printed)
// Constraints: eq. (34) as printed,
//   mu1 = (0, 0, -l cos phi, -sin(theta + phi), cos(theta + phi)),
//   mu2 = (0, 0,  l cos phi, -sin(theta - phi), cos(theta - phi)).
// The paper's alternative one-forms (0, 0, a, -c, 0), (0, 0, b, 0, -c) (a = -2 l cos(theta)
// cos^2(phi), b = -2 l sin(theta) cos^2(phi), c = sin 2 phi) annihilate the same D but lose rank
// at phi = 0 (c = 0), where (34) does not; (34) is used. Both degenerate at cos(phi) = 0 (wheels
// across the board: D changes rank); a trajectory reaching it is outside the model.
// Controls ([Kobilarov2010] §4.2, §6.2): two torques u = (u_psi, u_phi) [N m] on the shape
// variables, B(q) = [e_psi, e_phi], so f(q, t) = (u_psi(t), u_phi(t), 0, 0, 0) (V = 0). Fig. 4:
// u_psi = cos(20 pi t), u_phi = sin(2 pi t). The inputs are data (EnsembleSpec::controls).
//
// Lie-group structure (§5, §6.2), for rdp_exp / rdp_cay: body velocity xi = (omega, v1, v2),
// (x', y') = R(theta) (v1, v2); the reduced Lagrangian is l(u, xi) = 1/2 (u, xi)^T M (u, xi)
// with the same constant M (§6.2 prints it without the 1/2, a typo that does not change the
// equations' solutions). Constrained symmetry space s = span{e1(r)},
//   e1(r) = 2 l cos^2(phi) (tan(phi) / l, -1, 0) = (sin 2 phi, -2 l cos^2 phi, 0),
// connection (local form) A(r) = [[I sin^2(phi) / (m l^2), 0], [-I sin(2 phi) / (2 m l), 0],
// [0, 0]] as printed, with xi = Omega - A(r) u; p1 = <dl/dxi, e1(r)> and Omega = p1 /
// (4 m l^2 cos^2 phi) e1(r) (checked in the test: (u, -A u) is M-orthogonal to (0, e1)).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/controls.hpp"
#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The snakeboard of [Kobilarov2010] §6.2. Fixed sizes: q, p in R^5, two constraints, two control
/// inputs, SE(2) structure with NSHAPE = 2, NS = 1. Parameters m [kg] > 0, l [m] > 0,
/// I [kg m^2] > 0 with I < m l^2, J [kg m^2] > 0, all finite, else std::invalid_argument.
class Snakeboard : public CanonicalTypes<5, 2>, public ZeroPotential {
 public:
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = false;
  static constexpr bool kHasControls = true;
  static constexpr int NU = 2;
  static constexpr bool kSE2Symmetry = true;
  static constexpr int NSHAPE = 2;
  static constexpr int NS = 1;

  using VecShape = Eigen::Matrix<double, NSHAPE, 1>;
  using MatConn = Eigen::Matrix<double, 3, NSHAPE>;
  using MatSym = Eigen::Matrix<double, 3, NS>;

  /// m [kg] > 0, l [m] > 0, I [kg m^2] in (0, m l^2), J [kg m^2] > 0; all finite.
  Snakeboard(double m, double l, double inertia, double j) : m_(m), l_(l), i_(inertia), j_(j) {
    if (!(m > 0.0) || !(l > 0.0) || !(inertia > 0.0) || !(j > 0.0) || !std::isfinite(m) ||
        !std::isfinite(l) || !std::isfinite(inertia) || !std::isfinite(j) ||
        !(inertia < m * l * l)) {
      throw std::invalid_argument(
          "snakeboard: m, l, I, J must be finite and > 0, and I < m l^2 (M positive definite)");
    }
    mass_.setZero();
    mass_(0, 0) = i_;
    mass_(0, 2) = i_;
    mass_(2, 0) = i_;
    mass_(1, 1) = 2.0 * j_;
    mass_(2, 2) = m_ * l_ * l_;
    mass_(3, 3) = m_;
    mass_(4, 4) = m_;
    const double det = i_ * (m_ * l_ * l_ - i_);  // of the (psi, theta) block
    inv_pp_ = m_ * l_ * l_ / det;
    inv_pt_ = -i_ / det;
    inv_tt_ = i_ / det;
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double m() const { return m_; }
  double l() const { return l_; }
  double inertia() const { return i_; }
  double j() const { return j_; }

  // ---- canonical form ----

  /// v = M^-1 p (length 5).
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    const double p0 = p(0), p2 = p(2);
    v(0) = inv_pp_ * p0 + inv_pt_ * p2;
    v(1) = p(1) / (2.0 * j_);
    v(2) = inv_pt_ * p0 + inv_tt_ * p2;
    v(3) = p(3) / m_;
    v(4) = p(4) / m_;
  }

  /// M (constant, as printed), 5 x 5.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    return mass_;
  }

  /// H(q, p) = 1/2 p^T M^-1 p [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    return 0.5 * p.dot(v);
  }

  /// mu(q) of eq. (34), 2 x 5 (templated on the scalar for the complex step of gonzalez_r).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    const auto phi = q(1), th = q(2);
    const auto cos_phi = dmath::cos(phi);
    const auto [sp, cp] = dmath::sincos(th + phi);
    const auto [sm, cm] = dmath::sincos(th - phi);
    mu(0, 0) = 0.0;
    mu(0, 1) = 0.0;
    mu(0, 2) = -l_ * cos_phi;
    mu(0, 3) = -sp;
    mu(0, 4) = cp;
    mu(1, 0) = 0.0;
    mu(1, 1) = 0.0;
    mu(1, 2) = l_ * cos_phi;
    mu(1, 3) = -sm;
    mu(1, 4) = cm;
  }

  /// d/dt mu(q(t)) for q' = v, 2 x 5.
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& q, const VV& v, Out& dmu) const {
    const double phi = q(1), th = q(2), dphi = v(1), dth = v(2);
    const auto [sp, cp] = dmath::sincos(th + phi);
    const auto [sm, cm] = dmath::sincos(th - phi);
    const double sin_phi = dmath::sin(phi);
    dmu.setZero();
    dmu(0, 2) = l_ * sin_phi * dphi;
    dmu(0, 3) = -cp * (dth + dphi);
    dmu(0, 4) = -sp * (dth + dphi);
    dmu(1, 2) = -l_ * sin_phi * dphi;
    dmu(1, 3) = -cm * (dth - dphi);
    dmu(1, 4) = -sm * (dth - dphi);
  }

  /// max_alpha |mu^alpha(q) M^-1 p| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    MatCQ mu;
    constraint(q, mu);
    return (mu * v).cwiseAbs().maxCoeff();
  }

  // ---- controls ([Kobilarov2010] §4.2) ----

  /// Binds u = (u_psi, u_phi); empty = both zero. Throws SpecError (validate_controls()).
  void set_controls(const std::vector<ControlSpec>& controls) {
    validate_controls(controls, NU, "snakeboard");
    for (int i = 0; i < NU; ++i) {
      u_[static_cast<std::size_t>(i)] =
          controls.empty() ? ControlSignal() : ControlSignal(controls[static_cast<std::size_t>(i)]);
    }
  }

  /// u_i(t) [N m].
  double control(int i, double t) const { return u_[static_cast<std::size_t>(i)](t); }

  /// f(q, t) = B u(t) - grad V = (u_psi(t), u_phi(t), 0, 0, 0) [N m, N m, N m, N, N].
  template <class VQ, class Out>
  void applied_force(const VQ& /*q*/, double t, Out& f) const {
    f.setZero();
    f(0) = u_[0](t);
    f(1) = u_[1](t);
  }

  // ---- SE(2) structure for rdp (§5, §6.2) ----

  /// Reduced inertia in (u, xi) = (psi', phi', omega, v1, v2): M.
  const MatQ& reduced_inertia() const { return mass_; }

  /// A(r), 3 x 2, as printed in §6.2.
  template <class VR, class Out>
  void connection(const VR& r, Out& conn) const {
    const double s = dmath::sin(r(1));
    conn.setZero();
    conn(0, 0) = i_ * s * s / (m_ * l_ * l_);
    conn(1, 0) = -i_ * dmath::sin(2.0 * r(1)) / (2.0 * m_ * l_);
  }

  /// e1(r) = (sin 2 phi, -2 l cos^2 phi, 0), 3 x 1.
  template <class VR, class Out>
  void symmetry_basis(const VR& r, Out& e) const {
    const double c = dmath::cos(r(1));
    e(0, 0) = dmath::sin(2.0 * r(1));
    e(1, 0) = -2.0 * l_ * c * c;
    e(2, 0) = 0.0;
  }

  /// Canonical state for the Fig. 4 style initial data: shape (psi, phi) and rates (psi', phi'),
  /// pose (theta, x, y) and the momentum p1 = <dl/dxi, e1(r)>: Omega = p1 / (4 m l^2 cos^2 phi)
  /// e1(r), xi = Omega - A(r) u, q' = (u, omega, R(theta) (v1, v2)), p = M q'.
  void state_from_shape(double psi, double phi, double theta, double x, double y, double dpsi,
                        double dphi, double p1, VecQ& q, VecQ& p) const {
    const VecShape r(psi, phi), u(dpsi, dphi);
    MatConn conn;
    MatSym e;
    connection(r, conn);
    symmetry_basis(r, e);
    const double c = dmath::cos(phi);
    const Eigen::Vector3d xi = e.col(0) * (p1 / (4.0 * m_ * l_ * l_ * c * c)) - conn * u;
    const auto [st, ct] = dmath::sincos(theta);
    VecQ v;
    v << dpsi, dphi, xi(0), ct * xi(1) - st * xi(2), st * xi(1) + ct * xi(2);
    q << psi, phi, theta, x, y;
    p = mass_ * v;
  }

 private:
  double m_, l_, i_, j_;
  double inv_pp_ = 0, inv_pt_ = 0, inv_tt_ = 0;
  MatQ mass_;
  std::array<ControlSignal, NU> u_{};
};

}  // namespace nhsim

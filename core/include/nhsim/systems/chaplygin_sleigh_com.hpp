// The Chaplygin sleigh about the centre of mass, [Kobilarov2010] §6.1, eq. (29)-(33), Fig. 2.
//
// A different coordinate choice from `chaplygin_sleigh` ([Celledoni2019] §4.2, contact point
// coordinates): q = (theta, x, y) in SE(2), orientation theta [rad] and centre of mass (x, y)
// [m]. Parameters: I [kg m^2] moment of inertia about the centre of mass (the paper writes both
// I and J for it: "p1 = (J + a^2 m) omega"; it is the same I), m [kg] mass, a [m] distance from
// the centre of mass back to the skate. The paper gives no numbers for Fig. 2; the defaults
// I = 1, m = 1, a = 1 are ours.
//
//   L = 1/2 I theta'^2 + 1/2 m (x'^2 + y'^2),  V = 0                                  eq. (29)
//   M = diag(I, m, m) (constant),  H(q, p) = 1/2 (p_theta^2 / I + (p_x^2 + p_y^2) / m)
//   skate point (x_s, y_s) = (x - a cos theta, y - a sin theta)                      §6.1
//   constraint a theta' + sin(theta) x' - cos(theta) y' = 0:  mu(q) = (a, sin theta, -cos theta)
// The projector Q(q) = M^-1 mu^T (mu M^-1 mu^T)^-1 mu of eq. (12a) is the printed eq. (33)
// (checked in the test). The paper's GNI update v_k+1/2 = (Id - M^-1 Q^T M) v_k-1/2 lacks a
// factor 2; its written-out components are (Id - 2 Q) v_k-1/2, which is what nh_rattle does.
//
// Lie-group structure ([Kobilarov2010] §5, §6.1, App. B), used by rdp_exp / rdp_cay: no shape
// space, G = SE(2) with body velocity xi = g^-1 g' = (omega, v, v_perp) (angular, forward,
// sideways; (x', y') = R(theta) (v, v_perp)); reduced Lagrangian l(xi) = 1/2 (I omega^2 + m v^2 +
// m v_perp^2), so the reduced inertia is M itself; constrained symmetry space s =
// span{e1 = (1, 0, a), e2 = (0, 1, 0)} (the body-frame form of mu: v_perp = a omega); no
// connection (A = 0).
//
// Observables besides the state: "x_s", "y_s", the skate point (Fig. 2 plots its path).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The sleigh of [Kobilarov2010] §6.1. Fixed sizes: q, p in R^3, one constraint, SE(2) structure
/// with NSHAPE = 0 and NS = 2. Parameters I [kg m^2] > 0, m [kg] > 0, a [m] >= 0, all finite, else
/// the constructor throws std::invalid_argument.
class ChaplyginSleighCom : public CanonicalTypes<3, 1>, public ZeroPotential {
 public:
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = false;
  /// Configuration q = (r, theta, x, y) on M x SE(2) (here no r), for rdp_exp / rdp_cay.
  static constexpr bool kSE2Symmetry = true;
  static constexpr int NSHAPE = 0;
  static constexpr int NS = 2;

  using VecShape = Eigen::Matrix<double, NSHAPE, 1>;
  using MatConn = Eigen::Matrix<double, 3, NSHAPE>;
  using MatSym = Eigen::Matrix<double, 3, NS>;

  /// I [kg m^2] (> 0), m [kg] (> 0), a [m] (>= 0); all finite.
  ChaplyginSleighCom(double inertia, double m, double a) : i_(inertia), m_(m), a_(a) {
    if (!(inertia > 0.0) || !(m > 0.0) || !(a >= 0.0) || !std::isfinite(inertia) ||
        !std::isfinite(m) || !std::isfinite(a)) {
      throw std::invalid_argument(
          "chaplygin sleigh (centre of mass): I, m must be finite and > 0, a finite and >= 0");
    }
    mass_ = VecQ(i_, m_, m_).asDiagonal();
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double inertia() const { return i_; }
  double m() const { return m_; }
  double a() const { return a_; }

  // ---- canonical form, eq. (29) ----

  /// v = M^-1 p = (p_theta / I, p_x / m, p_y / m) [rad/s, m/s, m/s].
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    v(0) = p(0) / i_;
    v(1) = p(1) / m_;
    v(2) = p(2) / m_;
  }

  /// M = diag(I, m, m), 3 x 3.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    return mass_;
  }

  /// H(q, p) = 1/2 p^T M^-1 p [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& /*q*/, const VP& p) const {
    return 0.5 * (p(0) * p(0) / i_ + (p(1) * p(1) + p(2) * p(2)) / m_);
  }

  /// mu(q) = (a, sin theta, -cos theta), 1 x 3 (§6.1). Templated on the scalar so that
  /// gonzalez_r can take dmu/dq by the complex step.
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu(0, 0) = a_;
    const auto [s, c] = dmath::sincos(q(0));
    mu(0, 1) = s;
    mu(0, 2) = -c;
  }

  /// d/dt mu(q(t)) for q' = v: sum_i dmu/dq^i v^i = (0, cos theta, sin theta) theta', 1 x 3.
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& q, const VV& v, Out& dmu) const {
    dmu(0, 0) = 0.0;
    const auto [s, c] = dmath::sincos(q(0));
    dmu(0, 1) = c * v(0);
    dmu(0, 2) = s * v(0);
  }

  /// mu(q) M^-1 p = a theta' + sin(theta) x' - cos(theta) y' [m/s], the sideways speed of the
  /// skate.
  template <class VQ, class VP>
  double constraint_value(const VQ& q, const VP& p) const {
    const auto [s, c] = dmath::sincos(q(0));
    return a_ * p(0) / i_ + (s * p(1) - c * p(2)) / m_;
  }

  /// |mu(q) M^-1 p| [m/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- observables: the skate point (§6.1, Fig. 2) ----

  /// Names of the observables besides the state: the skate point, [m].
  static std::array<std::string, 2> observable_names() { return {"x_s", "y_s"}; }

  /// Observable k of observable_names(): x_s = x - a cos theta (k = 0), y_s = y - a sin theta.
  template <class VQ, class VP>
  double observable(int k, const VQ& q, const VP& /*p*/) const {
    return k == 0 ? q(1) - a_ * dmath::cos(q(0)) : q(2) - a_ * dmath::sin(q(0));
  }

  // ---- SE(2) structure for rdp ([Kobilarov2010] §5, §6.1) ----

  /// Reduced inertia in the (u, xi) = (omega, v, v_perp) coordinates: diag(I, m, m).
  const MatQ& reduced_inertia() const { return mass_; }

  /// Local form A(r) of the nonholonomic connection: none (no shape space), 3 x 0.
  template <class VR, class Out>
  void connection(const VR& /*r*/, Out& /*conn*/) const {}

  /// Body-frame basis of s: columns e1 = (1, 0, a), e2 = (0, 1, 0) (§6.1), 3 x 2.
  template <class VR, class Out>
  void symmetry_basis(const VR& /*r*/, Out& e) const {
    e << 1.0, 0.0, 0.0, 1.0, a_, 0.0;
  }

  /// Canonical state (q, p) for orientation theta, centre of mass (x, y), angular velocity
  /// omega [rad/s] and forward speed v [m/s]; the sideways speed is a omega (constraint).
  void state_from_velocities(double theta, double x, double y, double omega, double v, VecQ& q,
                             VecQ& p) const {
    const auto [s, c] = dmath::sincos(theta);
    const double vp = a_ * omega;
    q << theta, x, y;
    p << i_ * omega, m_ * (c * v - s * vp), m_ * (s * v + c * vp);
  }

 private:
  double i_, m_, a_;
  MatQ mass_;
};

}  // namespace nhsim

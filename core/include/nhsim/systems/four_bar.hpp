// Double four-bar linkage in planar director coordinates, [Kinon2023] §5.2, eq. (70)-(80),
// Fig. 11-23 (benchmark of González et al. / Bayo & Avello, the paper's refs. [29], [30]).
//
// Five rigid bars B1..B5 (mass m, length l each). Per bar i: q^(i) = (phi^(i), d1^(i), d2^(i)) in
// R^6 (centre of mass and two orthonormal directors, eq. (70)), so q in R^30 (bar i at offset
// 6 (i - 1)), M^(i) = diag(m I, E1 I, E2 I) with E1 = E2 = J/2, J = m l^2 / 12 (eq. (71), slender
// bar), V = m g sum_i phi^(i)_2 (eq. (72), gravity -g e2).
//
// Geometry of Fig. 11, our reading of the text (the figure is not in the seed): d1^(i) points
// along bar i. Ground pivots P1, P2, P3 at (0, 0), (l, 0), (2 l, 0); the lower bars B1..B3 stand
// on them (lower end phi - l/2 d1 at the pivot, eq. (74a)); the upper bars B4 (from the top of B1
// to the top of B2) and B5 (from the top of B2 to the top of B3) have d1 pointing in +e1. Joint
// points: P4 = top of B1 = left end of B4 (eq. (74b)), P5 = top of B2 = right end of B4 = left
// end of B5 (two joints: B2-B4 and B2-B5), P6 = top of B3 = right end of B5. Seven joints, NG =
// 5 * 3 + 7 * 2 = 29 constraints (§5.2), rows in this order:
//   rows 3(i-1)..3(i-1)+2: eq. (73) for bar i: 1/2 (d1.d1 - 1), 1/2 (d2.d2 - 1), d1.d2;
//   rows 15 + 2 (j-1), +1: joint j = 1..7:
//     1: phi1 - l/2 d11 - P1,   2: phi2 - l/2 d12 - P2,   3: phi3 - l/2 d13 - P3,
//     4: phi1 + l/2 d11 - (phi4 - l/2 d14),  5: phi2 + l/2 d12 - (phi4 + l/2 d14),
//     6: phi2 + l/2 d12 - (phi5 - l/2 d15),  7: phi3 + l/2 d13 - (phi5 + l/2 d15).
// The configuration is one parallelogram chain with one degree of freedom, the inclination theta
// of the lower bars (d1^(1) = (cos theta, sin theta)); theta = pi/2 is upright, theta = 0 the
// singular horizontal configuration (G loses rank there: the motion passes through it).
// Internal constraints are quadratic (constant Hessians), joint constraints linear (constant
// Jacobian rows: their velocity level holds exactly at the step ends, Fig. 21). mu(q) = G(q)
// (NC = NG, no nonholonomic rows).
//
// Dampers (eq. (77)-(80)): two viscous elements with constant eta between P1 and P5 and between
// P2 and P6; P1, P2 are fixed, so v_rel1 = phi4' + l/2 d14' and v_rel2 = phi5' + l/2 d15' and the
// Rayleigh function eq. (77) gives the dissipation matrix C = D^2_v G: for bars 4 and 5 the
// blocks eta [[I, l/2 I, 0], [l/2 I, l^2/4 I, 0], [0, 0, 0]] on (phi, d1, d2). Eq. (80) prints
// these blocks with negative signs and the l/2 I in the d2 row: that matrix is neither positive
// semi-definite nor the Hessian of eq. (77), so the derivation from (77)-(78) is used.
//
// Observables (Fig. 12-21): x4, y4 (P4) [m], v4x (1-velocity of P4) [m/s], L (angular momentum
// eq. (75)) [kg m^2/s], kinetic_energy, potential_energy [J], dissipated_power P_v = v.C v [W],
// g_int_b1 / gv_int_b1 (max |.| of bar 1's internal constraints eq. (73), position / velocity
// level, Fig. 18, 19), g_ext_p4 / gv_ext_p4 (joint P4, eq. (74b), Fig. 20, 21).
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

/// The double four-bar linkage of [Kinon2023] §5.2. Fixed sizes: q, p in R^30, NG = NC = 29.
/// Parameters: m [kg] > 0 mass of each bar, l [m] > 0 length of each bar (and ground pivot
/// spacing), g [m/s^2] >= 0, eta [N s/m] >= 0 damping constant of both dampers (0: undamped);
/// all finite, else std::invalid_argument.
class FourBar : public HolonomicTypes<30, 29, 29> {
 public:
  static constexpr int kBars = 5;
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = false;
  static constexpr bool kQuadraticHolonomic = true;

  /// m [kg] > 0, l [m] > 0, g [m/s^2] >= 0, eta [N s/m] >= 0; all finite.
  FourBar(double m, double l, double g, double eta) : m_(m), l_(l), grav_(g), eta_(eta) {
    if (!std::isfinite(m) || !std::isfinite(l) || !std::isfinite(g) || !std::isfinite(eta) ||
        !(m > 0.0) || !(l > 0.0) || !(g >= 0.0) || !(eta >= 0.0)) {
      throw std::invalid_argument(
          "four_bar: m, l, g, eta must be finite, m > 0, l > 0, g >= 0, eta >= 0");
    }
    e_ = 0.5 * m * l * l / 12.0;
    damp_.setZero();
    for (int b : {3, 4}) {
      const int o = 6 * b;
      for (int a = 0; a < 2; ++a) {
        damp_(o + a, o + a) = eta;
        damp_(o + a, o + 2 + a) = 0.5 * l * eta;
        damp_(o + 2 + a, o + a) = 0.5 * l * eta;
        damp_(o + 2 + a, o + 2 + a) = 0.25 * l * l * eta;
      }
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double m() const { return m_; }
  double l() const { return l_; }
  double gravity() const { return grav_; }
  double eta() const { return eta_; }
  /// E1 = E2 = J/2 = m l^2 / 24 [kg m^2] (eq. (71)).
  double euler() const { return e_; }
  /// Diagonal entry k of M.
  double mass_diag(int k) const { return (k % 6) < 2 ? m_ : e_; }

  // ---- canonical form ----

  /// V = m g sum_i phi^(i)_2 [J], eq. (72).
  template <class VQ>
  double potential(const VQ& q) const {
    double y = 0.0;
    for (int b = 0; b < kBars; ++b) y += q(6 * b + 1);
    return m_ * grav_ * y;
  }

  template <class VQ, class Out>
  void grad_potential(const VQ& /*q*/, Out& gv) const {
    gv.setZero();
    for (int b = 0; b < kBars; ++b) gv(6 * b + 1) = m_ * grav_;
  }

  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    for (int k = 0; k < NQ; ++k) v(k) = p(k) / mass_diag(k);
  }

  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    Eigen::MatrixXd mm = Eigen::MatrixXd::Zero(NQ, NQ);
    for (int k = 0; k < NQ; ++k) mm(k, k) = mass_diag(k);
    return mm;
  }

  template <class VP>
  double kinetic_energy(const VP& p) const {
    double t = 0.0;
    for (int k = 0; k < NQ; ++k) t += p(k) * p(k) / mass_diag(k);
    return 0.5 * t;
  }

  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return kinetic_energy(p) + potential(q);
  }

  /// C of eq. (53) from the Rayleigh function (77) (see the file comment), 30 x 30, constant.
  template <class VQ, class Out>
  void dissipation_matrix(const VQ& /*q*/, Out& c) const {
    c = damp_;
  }

  // ---- holonomic constraints, eq. (73)-(74) ----

  template <class VQ, class Out>
  void holonomic_constraint(const VQ& q, Out& g) const {
    for (int b = 0; b < kBars; ++b) {
      const int o = 6 * b;
      g(3 * b) = 0.5 * (q(o + 2) * q(o + 2) + q(o + 3) * q(o + 3) - 1.0);
      g(3 * b + 1) = 0.5 * (q(o + 4) * q(o + 4) + q(o + 5) * q(o + 5) - 1.0);
      g(3 * b + 2) = q(o + 2) * q(o + 4) + q(o + 3) * q(o + 5);
    }
    for (int j = 0; j < 7; ++j) {
      const Joint& jt = kJoints[static_cast<std::size_t>(j)];
      for (int a = 0; a < 2; ++a) {
        double r = end_point(q, jt.a, jt.sa, a);
        if (jt.b >= 0) r -= end_point(q, jt.b, jt.sb, a);
        r -= (a == 0 ? jt.ground_x * l_ : 0.0);
        g(15 + 2 * j + a) = r;
      }
    }
  }

  /// G(q) = Dg(q), 29 x 30 (any scalar type).
  template <class VQ, class Out>
  void holonomic_jacobian(const VQ& q, Out& gm) const {
    gm.setZero();
    for (int b = 0; b < kBars; ++b) {
      const int o = 6 * b;
      for (int a = 0; a < 2; ++a) {
        gm(3 * b, o + 2 + a) = q(o + 2 + a);
        gm(3 * b + 1, o + 4 + a) = q(o + 4 + a);
        gm(3 * b + 2, o + 2 + a) = q(o + 4 + a);
        gm(3 * b + 2, o + 4 + a) = q(o + 2 + a);
      }
    }
    for (int j = 0; j < 7; ++j) {
      const Joint& jt = kJoints[static_cast<std::size_t>(j)];
      for (int a = 0; a < 2; ++a) {
        const int row = 15 + 2 * j + a;
        gm(row, 6 * jt.a + a) = 1.0;
        gm(row, 6 * jt.a + 2 + a) = 0.5 * jt.sa * l_;
        if (jt.b >= 0) {
          gm(row, 6 * jt.b + a) = -1.0;
          gm(row, 6 * jt.b + 2 + a) = -0.5 * jt.sb * l_;
        }
      }
    }
  }

  /// Rows (D^2 g_k w)^T, 29 x 30 (internal constraints only; joint rows are linear: zero).
  template <class VW, class Out>
  void holonomic_hessian_contract(const VW& w, Out& out) const {
    out.setZero();
    for (int b = 0; b < kBars; ++b) {
      const int o = 6 * b;
      for (int a = 0; a < 2; ++a) {
        out(3 * b, o + 2 + a) = w(o + 2 + a);
        out(3 * b + 1, o + 4 + a) = w(o + 4 + a);
        out(3 * b + 2, o + 2 + a) = w(o + 4 + a);
        out(3 * b + 2, o + 4 + a) = w(o + 2 + a);
      }
    }
  }

  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    holonomic_jacobian(q, mu);
  }

  /// d/dt mu(q(t)) = D^2 g . v, 29 x 30. Enables rk2.
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& /*q*/, const VV& v, Out& dmu) const {
    holonomic_hessian_contract(v, dmu);
  }

  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return velocity_constraint_residual(*this, VecQ(q), VecQ(p));  // mu = G
  }

  // ---- observables ----

  static std::array<std::string, 11> observable_names() {
    return {"x4",
            "y4",
            "v4x",
            "L",
            "kinetic_energy",
            "potential_energy",
            "dissipated_power",
            "g_int_b1",
            "gv_int_b1",
            "g_ext_p4",
            "gv_ext_p4"};
  }

  template <class VQ, class VP>
  double observable(int k, const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    switch (k) {
      case 0:
        return q(0) + 0.5 * l_ * q(2);
      case 1:
        return q(1) + 0.5 * l_ * q(3);
      case 2:
        return v(0) + 0.5 * l_ * v(2);
      case 3:
        return angular_momentum(q, p);
      case 4:
        return kinetic_energy(p);
      case 5:
        return potential(q);
      case 6:
        return v.dot(damp_ * v);
      default:
        break;
    }
    VecG g, gv;
    MatGQ gm;
    holonomic_constraint(q, g);
    holonomic_jacobian(q, gm);
    gv.noalias() = gm * v;
    switch (k) {
      case 7:
        return g.head<3>().cwiseAbs().maxCoeff();
      case 8:
        return gv.head<3>().cwiseAbs().maxCoeff();
      case 9:
        return g.segment<2>(15 + 2 * 3).cwiseAbs().maxCoeff();
      default:
        return gv.segment<2>(15 + 2 * 3).cwiseAbs().maxCoeff();
    }
  }

  /// L of eq. (75): sum over bars and over the 2-vectors (phi, d1, d2) of a . K b' with
  /// K = [[0, 1], [-1, 0]] (eq. (76)), weighted by m, E1, E2 [kg m^2/s].
  template <class VQ, class VP>
  double angular_momentum(const VQ& q, const VP& p) const {
    // m phi . K phi' = phi . K p_phi, E d . K d' = d . K p_d;  a . K b = a1 b2 - a2 b1.
    double l = 0.0;
    for (int s = 0; s < NQ / 2; ++s) l += q(2 * s) * p(2 * s + 1) - q(2 * s + 1) * p(2 * s);
    return l;
  }

  // ---- initial data (§5.2) ----

  /// Canonical state with the lower bars at inclination theta [rad] (d1 = (cos theta,
  /// sin theta), d2 = (-sin theta, cos theta)) turning at theta' [1/s], the upper bars horizontal
  /// and translating with the tops of the lower bars. Rigid, consistent velocities: G M^-1 p = 0.
  void state_at(double theta, double theta_dot, VecQ& q, VecQ& p) const {
    const auto [s, c] = dmath::sincos(theta);
    VecQ v;
    for (int b = 0; b < 3; ++b) {
      const int o = 6 * b;
      q.segment<6>(o) << b * l_ + 0.5 * l_ * c, 0.5 * l_ * s, c, s, -s, c;
      v.segment<6>(o) << -0.5 * l_ * s * theta_dot, 0.5 * l_ * c * theta_dot, -s * theta_dot,
          c * theta_dot, -c * theta_dot, -s * theta_dot;
    }
    for (int b = 3; b < 5; ++b) {
      const int o = 6 * b;
      q.segment<6>(o) << (b - 3) * l_ + l_ * c + 0.5 * l_, l_ * s, 1.0, 0.0, 0.0, 1.0;
      v.segment<6>(o) << -l_ * s * theta_dot, l_ * c * theta_dot, 0.0, 0.0, 0.0, 0.0;
    }
    for (int k = 0; k < NQ; ++k) p(k) = mass_diag(k) * v(k);
  }

  /// The paper's initial state: upright (theta = pi/2), upper bars moving with v0 [m/s] in +e1,
  /// lower bars' centres with v0/2 (theta' = -v0 / l).
  void upright_state(double v0, VecQ& q, VecQ& p) const {
    state_at(0.5 * 3.14159265358979323846, -v0 / l_, q, p);
  }

 private:
  struct Joint {
    int a;            // bar (0-based) whose end point is taken with +
    double sa;        // which end: -1 lower/left (phi - l/2 d1), +1 upper/right
    int b;            // bar subtracted, -1 for a ground pivot
    double sb;        // its end
    double ground_x;  // ground pivot x in units of l (b = -1)
  };
  static constexpr std::array<Joint, 7> kJoints{{{0, -1.0, -1, 0.0, 0.0},
                                                 {1, -1.0, -1, 0.0, 1.0},
                                                 {2, -1.0, -1, 0.0, 2.0},
                                                 {0, 1.0, 3, -1.0, 0.0},
                                                 {1, 1.0, 3, 1.0, 0.0},
                                                 {1, 1.0, 4, -1.0, 0.0},
                                                 {2, 1.0, 4, 1.0, 0.0}}};

  template <class VQ>
  auto end_point(const VQ& q, int bar, double side, int a) const {
    return q(6 * bar + a) + 0.5 * side * l_ * q(6 * bar + 2 + a);
  }

  double m_, l_, grav_, eta_;
  double e_ = 0.0;
  MatQ damp_;
};

}  // namespace nhsim

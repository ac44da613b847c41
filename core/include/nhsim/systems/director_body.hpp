// Rotating rigid body with a fixed point in the constrained-director formulation, [Gebhardt2020]
// §3.5 and §4.2: the standard body (`rigid_body`, eq. (56)-(68)) and the body based on the
// non-twisting frame (`nontwisting_body`, Thm 5 eq. (69), Thm 7 eq. (80)-(84)).
//
// q = (d1, d2, d3) in R^9 [dimensionless directors], p = (pi^1, pi^2, pi^3) = M q' [kg m^2/s]
// (eq. (65), (85)). Constant mass matrix eq. (88)
//   M = [[E11 I3, E12 I3, 0], [E12 I3, E22 I3, 0], [0, 0, E33 I3]]
// with the Euler inertia coefficients E_ij = int rho0 theta^i theta^j (eq. (66); E13 = E23 = 0
// because D3 is a principal axis). The convected inertia is J = tr(E) I - E; eq. (111):
// J = [[3, -1/7, 0], [-1/7, 4, 0], [0, 0, 5]] kg m^2, equivalently E = [[3, 1/7, 0], [1/7, 2,
// 0], [0, 0, 1]] kg m^2 (the defaults; parameters E11, E12, E22, E33 [kg m^2], E positive
// definite). K = 1/2 q'^T M q' = 1/2 W . J W (eq. (33), (61)); V = 0.
//
// Holonomic constraints (NG = 6, orthonormality of the directors; the paper's h of eq. (63)
// lists the three orthogonality conditions, with |d_i| = 1 from Q subset S^2 x S^2 x S^2 of
// eq. (56); here all six are explicit and quadratic, so the AVF Jacobian (eq. (89)) is the
// midpoint Jacobian and H_d (q1 - q0) = g(q1) - g(q0) holds exactly, eq. (90)):
//   g = (1/2 (|d1|^2 - 1), 1/2 (|d2|^2 - 1), 1/2 (|d3|^2 - 1), d2.d3, d1.d3, d1.d2).
// Constraint one-forms mu(q) (rows, the canonical-form contract): [G(q); nonholonomic], G = Dg.
// Non-twisting body: one more row, eq. (80) with a = 1/2,
//   mu_7 q' = 1/2 (d1'.d2 - d2'.d1) = w . d3 = w_parallel       (Pi3 = J33 W3 = 0, eq. (69c)),
// (every a in [0, 1] gives the same constraint on TQ and, for the EM scheme, the same discrete
// constraint and solution, since the a-dependent part of the reaction is absorbed by the
// multiplier of d1.d2 = 0; a = 1/2 makes mu_7 q' = w_parallel exactly on TQ).
// mu(q) is linear in q, so d/dt mu(q(t)) = mu(q') (constraint_dot, enables rk2).
//
// Loads (eq. (84), Remark 4; EnsembleSpec::loads): a material torque m(t) = sum_l f_l(t)
// (D_l^1 d1 + D_l^2 d2 + D_l^3 d3) [N m] does virtual work sum_i 1/2 (d_i x delta d_i) . m, i.e.
// generalised forces f_i = 1/2 m x d_i on the directors (on a rigid variation delta d_i =
// dtheta x d_i this is dtheta . m, eq. (79)). Case 2, eq. (115)-(116): D = (-2472.5, -1075, 0),
// f the table (0, 0), (0.5, 1), (1, 0).
//
// Observables (observable_names()): spatial angular momentum pi = sum_i d_i x pi^i (eq. (109))
// "sam_1".."sam_3"; material angular momentum "Pi1".."Pi3" = d_a . pi (eq. (74b-c), (109));
// "kinetic_energy" K = 1/2 p^T M^-1 p; "d3_1".."d3_3" the components of d3 (Figs. 3, 10-12).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/controls.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// Director rigid body ([Gebhardt2020] §3.5 / §4.2). NonTwisting = false: the standard body, NC = 6
/// (holonomic rows only); true: the non-twisting body, NC = 7 (last row w . d3 = 0).
/// Parameters: Euler inertia coefficients E11, E22, E33 > 0 and E12 with E11 E22 > E12^2
/// [kg m^2], all finite; else std::invalid_argument.
template <bool NonTwisting>
class DirectorBody : public ZeroPotential {
 public:
  static constexpr int NQ = 9;
  static constexpr int NG = 6;
  static constexpr int NC = NonTwisting ? 7 : 6;
  static constexpr bool kConstantMass = true;
  static constexpr bool kIdentityMass = false;
  static constexpr bool kHasReducedForm = false;
  static constexpr bool kHasLoads = true;
  /// Marks the director systems `em` applies to (AVF Jacobians of eq. (89), (93) exact by the
  /// midpoint rule because every constraint row is linear in q).
  static constexpr bool kDirectorBody = true;

  using VecQ = Eigen::Matrix<double, NQ, 1>;
  using VecC = Eigen::Matrix<double, NC, 1>;
  using VecG = Eigen::Matrix<double, NG, 1>;
  using MatCQ = Eigen::Matrix<double, NC, NQ>;
  using MatGQ = Eigen::Matrix<double, NG, NQ>;
  using MatQ = Eigen::Matrix<double, NQ, NQ>;

  /// Euler inertia coefficients [kg m^2]: E11, E22, E33 > 0, E11 E22 - E12^2 > 0, finite.
  DirectorBody(double e11, double e12, double e22, double e33)
      : e11_(e11), e12_(e12), e22_(e22), e33_(e33) {
    if (!std::isfinite(e11) || !std::isfinite(e12) || !std::isfinite(e22) || !std::isfinite(e33) ||
        !(e11 > 0.0) || !(e22 > 0.0) || !(e33 > 0.0) || !(e11 * e22 - e12 * e12 > 0.0)) {
      throw std::invalid_argument(
          "director body: E11, E22, E33 must be > 0 and E11 E22 > E12^2 (finite)");
    }
    const double det = e11 * e22 - e12 * e12;
    i11_ = e22 / det;
    i12_ = -e12 / det;
    i22_ = e11 / det;
    mass_.setZero();
    for (int k = 0; k < 3; ++k) {
      mass_(k, k) = e11;
      mass_(k, 3 + k) = e12;
      mass_(3 + k, k) = e12;
      mass_(3 + k, 3 + k) = e22;
      mass_(6 + k, 6 + k) = e33;
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double e11() const { return e11_; }
  double e12() const { return e12_; }
  double e22() const { return e22_; }
  double e33() const { return e33_; }
  /// Convected inertia J = tr(E) I - E (3 x 3) [kg m^2].
  Eigen::Matrix3d convected_inertia() const {
    Eigen::Matrix3d e;
    e << e11_, e12_, 0.0, e12_, e22_, 0.0, 0.0, 0.0, e33_;
    return e.trace() * Eigen::Matrix3d::Identity() - e;
  }

  // ---- canonical form ----

  /// v = M^-1 p (length 9).
  template <class VQ, class VP, class Out>
  void inv_mass_times(const VQ& /*q*/, const VP& p, Out& v) const {
    for (int k = 0; k < 3; ++k) {
      const double a = p(k), b = p(3 + k);
      v(k) = i11_ * a + i12_ * b;
      v(3 + k) = i12_ * a + i22_ * b;
      v(6 + k) = p(6 + k) / e33_;
    }
  }
  /// M of eq. (88), 9 x 9.
  template <class VQ>
  Eigen::MatrixXd mass_matrix_dyn(const VQ& /*q*/) const {
    return mass_;
  }
  /// H = K = 1/2 p^T M^-1 p [J].
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    return 0.5 * p.dot(v);
  }

  /// g(q), 6 (see the header comment).
  template <class VQ, class Out>
  void holonomic_constraint(const VQ& q, Out& g) const {
    const auto d1 = q.template segment<3>(0), d2 = q.template segment<3>(3),
               d3 = q.template segment<3>(6);
    g(0) = 0.5 * (d1.squaredNorm() - 1.0);
    g(1) = 0.5 * (d2.squaredNorm() - 1.0);
    g(2) = 0.5 * (d3.squaredNorm() - 1.0);
    g(3) = d2.dot(d3);
    g(4) = d1.dot(d3);
    g(5) = d1.dot(d2);
  }
  /// G(q) = Dg(q), 6 x 9.
  template <class VQ, class Out>
  void holonomic_jacobian(const VQ& q, Out& G) const {
    fill_rows(q, G, false);
  }

  /// mu(q) = [G(q); 1/2 (d2^T, -d1^T, 0)] (the last row only for the non-twisting body),
  /// NC x 9; templated on the scalar (complex step of gonzalez_r).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    fill_rows(q, mu, NonTwisting);
  }
  /// d/dt mu(q(t)) = mu(q') (mu is linear in q), NC x 9.
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& /*q*/, const VV& v, Out& dmu) const {
    fill_rows(v, dmu, NonTwisting);
  }
  /// max_alpha |mu^alpha(q) M^-1 p| [1/s].
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    VecQ v;
    inv_mass_times(q, p, v);
    MatCQ mu;
    constraint(q, mu);
    return (mu * v).cwiseAbs().maxCoeff();
  }

  // ---- loads (eq. (84)) ----

  /// Binds the loads; throws SpecError("loads[i]...") (validate_loads()).
  void set_loads(const std::vector<LoadSpec>& loads) {
    validate_loads(loads, true, NonTwisting ? "nontwisting_body" : "rigid_body");
    n_loads_ = 0;
    loads_.clear();
    for (const auto& l : loads) {
      loads_.push_back({Eigen::Vector3d(l.direction[0], l.direction[1], l.direction[2]),
                        ControlSignal(l.profile)});
    }
    n_loads_ = static_cast<int>(loads_.size());
  }
  /// Material components (m . d1, m . d2, m . d3) of the total load at t [N m] (directors
  /// orthonormal): sum_l f_l(t) D_l.
  Eigen::Vector3d material_torque(double t) const {
    Eigen::Vector3d m = Eigen::Vector3d::Zero();
    for (int l = 0; l < n_loads_; ++l) {
      const auto& ld = loads_[static_cast<std::size_t>(l)];
      m += ld.signal(t) * ld.direction;
    }
    return m;
  }
  /// f(q, t) = (1/2 m x d1, 1/2 m x d2, 1/2 m x d3), m = sum_a M^a(t) d_a (eq. (84)) [N m].
  template <class VQ, class Out>
  void applied_force(const VQ& q, double t, Out& f) const {
    f.setZero();
    if (n_loads_ == 0) return;
    const Eigen::Vector3d mm = material_torque(t);
    const Eigen::Vector3d d1 = q.template segment<3>(0), d2 = q.template segment<3>(3),
                          d3 = q.template segment<3>(6);
    const Eigen::Vector3d m = mm(0) * d1 + mm(1) * d2 + mm(2) * d3;
    f.template segment<3>(0) = 0.5 * m.cross(d1);
    f.template segment<3>(3) = 0.5 * m.cross(d2);
    f.template segment<3>(6) = 0.5 * m.cross(d3);
  }

  // ---- observables ----

  static std::array<const char*, 10> observable_names() {
    return {"Pi1",   "Pi2",   "Pi3",  "kinetic_energy", "sam_1",
            "sam_2", "sam_3", "d3_1", "d3_2",           "d3_3"};
  }
  /// Spatial angular momentum pi = sum_i d_i x pi^i [kg m^2/s] (eq. (109)).
  template <class VQ, class VP>
  static Eigen::Vector3d spatial_momentum(const VQ& q, const VP& p) {
    Eigen::Vector3d s = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d d = q.template segment<3>(3 * i), pi = p.template segment<3>(3 * i);
      s += d.cross(pi);
    }
    return s;
  }
  /// Observable k of observable_names() at (q, p).
  template <class VQ, class VP>
  double observable(int k, const VQ& q, const VP& p) const {
    if (k == 3) return hamiltonian(q, p);
    if (k >= 7) return q(6 + (k - 7));
    const Eigen::Vector3d s = spatial_momentum(q, p);
    if (k >= 4) return s(k - 4);
    return s.dot(q.template segment<3>(3 * k));  // Pi^a = d_a . pi
  }

  /// Canonical state of the body with directors d_i = R e_i (R in SO(3), columns d1, d2, d3)
  /// and convected angular velocity W [rad/s]: w = R W, d_i' = w x d_i, p = M q'. For the
  /// non-twisting body W(2) must be 0 (eq. (70)).
  void state_from_rotation(const Eigen::Matrix3d& r, const Eigen::Vector3d& w_body, VecQ& q,
                           VecQ& p) const {
    const Eigen::Vector3d w = r * w_body;
    VecQ v;
    for (int i = 0; i < 3; ++i) {
      q.template segment<3>(3 * i) = r.col(i);
      v.template segment<3>(3 * i) = w.cross(Eigen::Vector3d(r.col(i)));
    }
    p = mass_ * v;
  }

 private:
  template <class VQ, class Out>
  static void fill_rows(const VQ& q, Out& mu, bool nonholonomic_row) {
    mu.setZero();
    for (int k = 0; k < 3; ++k) {
      const auto a = q(k), b = q(3 + k), c = q(6 + k);  // d1_k, d2_k, d3_k
      mu(0, k) = a;
      mu(1, 3 + k) = b;
      mu(2, 6 + k) = c;
      mu(3, 3 + k) = c;
      mu(3, 6 + k) = b;
      mu(4, k) = c;
      mu(4, 6 + k) = a;
      mu(5, k) = b;
      mu(5, 3 + k) = a;
      if (nonholonomic_row) {
        mu(6, k) = 0.5 * b;
        mu(6, 3 + k) = -0.5 * a;
      }
    }
  }

  struct Load {
    Eigen::Vector3d direction;
    ControlSignal signal;
  };

  double e11_, e12_, e22_, e33_;
  double i11_ = 0, i12_ = 0, i22_ = 0;
  MatQ mass_;
  std::vector<Load> loads_;
  int n_loads_ = 0;
};

/// The non-twisting body of [Gebhardt2020] §4 (`nontwisting_body`).
using NontwistingBody = DirectorBody<true>;
/// The standard rotating rigid body of [Gebhardt2020] §3.5 (`rigid_body`).
using RigidBody = DirectorBody<false>;

}  // namespace nhsim

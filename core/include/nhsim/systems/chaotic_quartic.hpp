// Chaotic quartic nonholonomic system on Q = R^(2n+1), [Celledoni2019] §4.1, eq. (19)-(21)
// ([McLachlan2006] §5).
//
// q = (x, w_1..w_n, z_1..z_n), M = I (g = sum dq^i (x) dq^i),
//   V(q) = 1/2 (|q|^2 + z_1^2 z_2^2 + sum_i w_i^2 z_i^2)                      [Celledoni2019] eq.
//   (19) constraint  x' + sum_i w_i z_i' = 0, i.e. mu(q) = (1, 0..0, w_1..w_n)      [Celledoni2019]
//   eq. (20)
// For n = 1 there is no z_2 and the coupling term z_1^2 z_2^2 is absent.
//
// Reduced form on D*: zeta = (q, rho), rho = (xi, eta) in R^n x R^n, with the adapted frame
//   X_i = d/dw_i,  X_{n+i} = w_i d/dx - d/dz_i  (i = 1..n),   g_ab = diag(I, I + w w^T),
//   H(zeta) = 1/2 |xi|^2 + 1/2 |eta|^2 - 1/2 kappa (w.eta) + V(q),  kappa = w.eta / (1 + |w|^2).
// Derived here from eq. (7)-(8) and checked against eq. (21). Differences from the printed text:
//   * eq. (21) grad H, rows z_i: the printed "y_i^2 z_i" must read "w_i^2 z_i" (dV/dz_i);
//   * §4.1.1 prints l = 1/2 (g_ab y^a y^b - V); the correct restricted Lagrangian is
//     l = 1/2 g_ab y^a y^b - V (the 1/2 does not multiply V), which is what H above uses;
//   * the z_1^2 z_2^2 coupling appears in dV/dz_1 and dV/dz_2 only, and only for n >= 2.
// Pi(zeta) of eq. (21) is as printed: the (rho, rho) block -C_ab^c rho_c = [[0, -kappa I],
// [kappa I, 0]] follows from eq. (17) with [X_i, X_{n+j}] = delta_ij d/dx and p_x = kappa.
// Maps between (q, p) and (q, rho), eq. (16a-b):  rho = X^T p,  p = X g^-1 rho.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/eigen_util.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The chaotic quartic system with n blocks (N = n at compile time, or Eigen::Dynamic).
/// Vectors: q and p have length 2n+1, rho has length 2n, zeta = (q, rho) has length 4n+1.
/// All quantities dimensionless (the seed gives none). Throws std::invalid_argument for n < 1.
template <int N>
class ChaoticQuartic : public IdentityMass {
 public:
  static constexpr int kN = N;
  static constexpr int NQ = N == Eigen::Dynamic ? Eigen::Dynamic : 2 * N + 1;
  static constexpr int NC = 1;
  static constexpr int NR = N == Eigen::Dynamic ? Eigen::Dynamic : 2 * N;
  static constexpr int NZ = N == Eigen::Dynamic ? Eigen::Dynamic : 4 * N + 1;
  static constexpr bool kHasReducedForm = true;

  using VecQ = Eigen::Matrix<double, NQ, 1>;
  using VecR = Eigen::Matrix<double, NR, 1>;
  using VecZ = Eigen::Matrix<double, NZ, 1>;
  using VecC = Eigen::Matrix<double, NC, 1>;
  using MatCQ = Eigen::Matrix<double, NC, NQ>;
  using MatZ = Eigen::Matrix<double, NZ, NZ>;

  explicit ChaoticQuartic(int n) : n_(n) {
    if (n < 1) throw std::invalid_argument("n must be >= 1");
    if (N != Eigen::Dynamic && n != N) throw std::invalid_argument("n does not match N");
  }

  /// n: the compile-time N where the type fixes it, so that every loop over the blocks has a
  /// constant trip count and constant indices (unrolled, the state kept in registers); the
  /// operations and their order are the same either way.
  int n() const {
    if constexpr (N == Eigen::Dynamic) {
      return n_;
    } else {
      return N;
    }
  }
  int nq() const { return 2 * n() + 1; }
  int nc() const { return 1; }
  int nr() const { return 2 * n(); }
  int nz() const { return 4 * n() + 1; }

  // ---- canonical form: H(q, p) = 1/2 p^T p + V(q), [Celledoni2019] eq. (6c-d), (19)-(20) ----

  /// V(q), eq. (19).
  template <class VQ>
  double potential(const VQ& q) const {
    double s = q.squaredNorm();
    if (n() >= 2) s += q(z(0)) * q(z(0)) * q(z(1)) * q(z(1));
    for (int i = 0; i < n(); ++i) s += q(w(i)) * q(w(i)) * q(z(i)) * q(z(i));
    return 0.5 * s;
  }

  /// dV/dq (length nq).
  template <class VQ, class Out>
  void grad_potential(const VQ& q, Out& g) const {
    using T = typename VQ::Scalar;
    g(0) = q(0);
    for (int i = 0; i < n(); ++i) {
      const T wi = q(w(i)), zi = q(z(i));
      g(w(i)) = wi + wi * zi * zi;
      g(z(i)) = zi + wi * wi * zi;
    }
    if (n() >= 2) {
      const T z1 = q(z(0)), z2 = q(z(1));
      g(z(0)) += z1 * z2 * z2;
      g(z(1)) += z1 * z1 * z2;
    }
  }

  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return 0.5 * p.squaredNorm() + potential(q);
  }

  /// Constraint one-forms mu(q), 1 x nq, eq. (20).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu.setZero();
    mu(0, 0) = 1.0;
    for (int i = 0; i < n(); ++i) mu(0, z(i)) = q(w(i));
  }

  /// d/dt mu(q(t)) for q' = v: (0, 0..0, v_{w_1}..v_{w_n}), 1 x nq (mu is linear in q).
  template <class VQ, class VV, class Out>
  void constraint_dot(const VQ& /*q*/, const VV& v, Out& dmu) const {
    dmu.setZero();
    for (int i = 0; i < n(); ++i) dmu(0, z(i)) = v(w(i));
  }

  /// mu(q) M^-1 p = p_x + sum_i w_i p_{z_i} (the constraint eq. (6d)).
  template <class VQ, class VP>
  typename VP::Scalar constraint_value(const VQ& q, const VP& p) const {
    typename VP::Scalar c = p(0);
    for (int i = 0; i < n(); ++i) c += q(w(i)) * p(z(i));
    return c;
  }

  /// max_alpha |mu^alpha(q) M^-1 p|: here the single |p_x + sum_i w_i p_{z_i}|.
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

  // ---- reduced form on D*, eq. (7)-(9), (16), (21) ----

  /// rho = X(q)^T p, eq. (16b). p must have length nq, rho gets length nr.
  template <class VQ, class VP, class Out>
  void to_reduced(const VQ& q, const VP& p, Out& rho) const {
    for (int i = 0; i < n(); ++i) {
      rho(i) = p(w(i));
      rho(n() + i) = q(w(i)) * p(0) - p(z(i));
    }
  }

  /// p = X(q) g^-1(q) rho, eq. (16a) with M = I; the result satisfies the constraint exactly.
  template <class VQ, class VRho, class Out>
  void from_reduced(const VQ& q, const VRho& rho, Out& p) const {
    const double k = kappa(q, rho);
    double px = 0.0;
    for (int i = 0; i < n(); ++i) {
      const double u_eta = rho(n() + i) - k * q(w(i));
      px += q(w(i)) * u_eta;
      p(w(i)) = rho(i);
      p(z(i)) = -u_eta;
    }
    p(0) = px;
  }

  /// kappa = w.eta / (1 + |w|^2) for zeta = (q, rho) given as separate q and rho.
  template <class VQ, class VRho>
  double kappa(const VQ& q, const VRho& rho) const {
    double we = 0.0, ww = 0.0;
    for (int i = 0; i < n(); ++i) {
      we += q(w(i)) * rho(n() + i);
      ww += q(w(i)) * q(w(i));
    }
    return we / (1.0 + ww);
  }

  /// H(zeta) = 1/2 g^ab rho_a rho_b + V(q), zeta = (q, rho) of length nz.
  double reduced_hamiltonian(const VecZ& zeta) const {
    const auto q = head_n<NQ>(zeta, nq());
    double kin = 0.0, we = 0.0, ww = 0.0;
    for (int i = 0; i < n(); ++i) {
      const double xi = zeta(nq() + i), eta = zeta(nq() + n() + i), wi = q(w(i));
      kin += xi * xi + eta * eta;
      we += wi * eta;
      ww += wi * wi;
    }
    return 0.5 * (kin - we * we / (1.0 + ww)) + potential(q);
  }

  /// grad H(zeta), eq. (21) with the z-rows corrected (see the file comment).
  template <class VZ, class Out>
  void reduced_gradient(const VZ& zeta, Out& g) const {
    reduced_gradient_at(zeta, zeta_kappa(zeta), g);
  }

  /// out = Pi(zeta) v, eq. (8)/(21); Pi is evaluated at `zeta`, v has length nz.
  template <class VZ, class VIn, class Out>
  void apply_pi(const VZ& zeta, const VIn& v, Out& out) const {
    apply_pi_at(zeta, zeta_kappa(zeta), v, out);
  }

  /// f(zeta) = Pi(zeta) grad H(zeta), the reduced vector field eq. (9); kappa computed once.
  template <class VZ, class Out>
  void reduced_rhs(const VZ& zeta, VZ& grad_ws, Out& out) const {
    const typename VZ::Scalar k = zeta_kappa(zeta);
    reduced_gradient_at(zeta, k, grad_ws);
    apply_pi_at(zeta, k, grad_ws, out);
  }

  int w(int i) const { return 1 + i; }
  int z(int i) const { return 1 + n() + i; }

 private:
  /// kappa = w.eta / (1 + |w|^2) of zeta = (q, rho).
  template <class VZ>
  typename VZ::Scalar zeta_kappa(const VZ& zeta) const {
    using T = typename VZ::Scalar;
    const int o = nq();
    T we = 0.0, ww = 0.0;
    for (int i = 0; i < n(); ++i) {
      const T wi = zeta(w(i));
      we += wi * zeta(o + n() + i);
      ww += wi * wi;
    }
    return we / (1.0 + ww);
  }

  /// grad H(zeta) given kappa k of zeta.
  template <class VZ, class Out>
  void reduced_gradient_at(const VZ& zeta, const typename VZ::Scalar& k, Out& g) const {
    using T = typename VZ::Scalar;
    const int o = nq();
    g(0) = zeta(0);
    for (int i = 0; i < n(); ++i) {
      const T wi = zeta(w(i)), zi = zeta(z(i)), eta = zeta(o + n() + i);
      g(w(i)) = wi + wi * zi * zi - k * eta + k * k * wi;
      g(z(i)) = zi + wi * wi * zi;
      g(o + i) = zeta(o + i);
      g(o + n() + i) = eta - k * wi;
    }
    if (n() >= 2) {
      const T z1 = zeta(z(0)), z2 = zeta(z(1));
      g(z(0)) += z1 * z2 * z2;
      g(z(1)) += z1 * z1 * z2;
    }
  }

  /// Pi(zeta) v given kappa k of zeta.
  template <class VZ, class VIn, class Out>
  void apply_pi_at(const VZ& zeta, const typename VZ::Scalar& k, const VIn& v, Out& out) const {
    using T = typename VZ::Scalar;
    const int o = nq();
    T wve = 0.0;
    for (int i = 0; i < n(); ++i) wve += zeta(w(i)) * v(o + n() + i);
    out(0) = wve;
    const T vx = v(0);
    for (int i = 0; i < n(); ++i) {
      const T vxi = v(o + i), veta = v(o + n() + i);
      out(w(i)) = vxi;
      out(z(i)) = -veta;
      out(o + i) = -v(w(i)) - k * veta;
      out(o + n() + i) = -zeta(w(i)) * vx + v(z(i)) + k * vxi;
    }
  }

  int n_;
};

}  // namespace nhsim

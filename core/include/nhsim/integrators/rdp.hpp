// `rdp_exp` and `rdp_cay`: the reduced d'Alembert-Pontryagin integrator (RDP) of [Kobilarov2010]
// §5, eq. (27)-(28), on Q = M x G with G = SE(2), with the retraction tau = exp or cay (App. A-B,
// integrators/se2.hpp).
//
// System interface (S::kSE2Symmetry): q = (r, theta, x, y) with shape r in R^NSHAPE; a constant
// reduced inertia MM (reduced_inertia(), NQ x NQ) with l(r, u, xi) = 1/2 (u, xi)^T MM (u, xi),
// xi = g^-1 g' = (omega, v1, v2) the body velocity; the local connection A(r) (3 x NSHAPE) and a
// body basis E(r) = [e_1(r) .. e_c(r)] of the constrained symmetry space s (3 x NS), with the
// constraint distribution D = {(u, xi): xi = E(r) w - A(r) u}; an applied force acting on the
// shape only (f_k = the shape part of applied_force(q_k, t_k)). Both [Kobilarov2010] systems have
// an r-independent l and V = 0, so eq. (27), which has no dl/dr term, is complete for them.
//
// The discrete flow, alpha = 1/2 (our choice of the paper's alpha in [0, 1], symmetric):
//   r_k+a = r_k + alpha h u_k,   xi_k = E(r_k+a) w_k - A(r_k+a) u_k   (Omega_k = E w_k)
//   Pi(r) (pi_r, mu) := (pi_r - A(r)^T mu, E(r)^T mu)       (pairing of a covector with D)
//   Pi(r_k) [pi^-_k - pi^+_k] = (h f_k, 0),                                        eq. (27)
//     pi^-_k = (dl/du_k, [dtau^-1_{h xi_k}]^T dl/dxi_k),
//     pi^+_k = (dl/du_k-1, [dtau^-1_{-h xi_k-1}]^T dl/dxi_k-1)
//   g_k+1 = g_k tau(h xi_k),  r_k+1 = r_k + h u_k                                    eq. (28)
// Sign: (27) prints +[A(r_k)]^T in the upper right block. With the paper's own convention
// xi = Omega - A(r) u, the horizontal variations are (delta r, -A delta r) and the Lagrange-
// d'Alembert principle gives -A^T (Pi annihilates exactly the constraint covectors only with
// -A^T). We use -A^T. For both [Kobilarov2010] systems the block multiplies zero (sleigh: no shape;
// snakeboard: A(r) delta is parallel to e1(r), so A^T nu = 0 whenever E^T nu = 0, the second
// row), so the choice does not change their results.
//
// One-step form in canonical coordinates. The node momentum y_k := Pi(r_k) p_k in R^(NSHAPE+NS)
// (p_k a constrained covector, i.e. the D-part of the momentum) is the state with (r_k, g_k):
//   solve  Pi(r_k) pi^-(u_k, w_k) = y_k + (h/2 f_k, 0)           (Newton on (u_k, w_k))
//   reconstruct (28), then y_k+1 = Pi(r_k+1) pi^+_k+1 + (h/2 f_k+1, 0).
// Composing two steps gives (27) exactly (the h f_k splits in halves, as eq. (15) does for the
// GNI). set_canonical: y_0 = Pi(r_0) (p_r, p_theta, R(theta)^T (p_x, p_y)) (body covector);
// canonical(): p = the unique constrained momentum with Pi(r_k) p = y_k (an (NSHAPE+NS)-square
// solve), mapped back to canonical coordinates. The constraint therefore holds to round-off at
// every reported state; the energy is not exactly preserved (second order).
// Newton: SimplifiedNewton on x = (u_k, w_k) with a forward-difference Jacobian, predictor the
// previous step's solution (first step: the node velocity).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nhsim/controls.hpp"
#include "nhsim/dmath.hpp"
#include "nhsim/integrators/descriptors/rdp.hpp"
#include "nhsim/integrators/se2.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S, Retraction R>
class RdpMethod {
 public:
  using VecQ = typename S::VecQ;
  static constexpr int NQ = S::NQ;
  static constexpr int NR = S::NSHAPE;
  static constexpr int NS = S::NS;
  static constexpr int NX = NR + NS;
  using VecR = Eigen::Matrix<double, NR, 1>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;
  using MatConn = Eigen::Matrix<double, 3, NR>;
  using MatSym = Eigen::Matrix<double, 3, NS>;
  using MatQX = Eigen::Matrix<double, NQ, NX>;
  static constexpr double kAlpha = 0.5;

  RdpMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys), h_(h), ns_(ns), newton_(NX), mm_(sys.reduced_inertia()) {
    r_.setZero();
    y_.setZero();
    x_.setZero();
    rhs_.setZero();
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    r_ = q.template head<NR>();
    th_ = q(NR);
    gx_ = q(NR + 1);
    gy_ = q(NR + 2);
    VecQ body;
    to_body(p, body);
    pi_map(r_, body, y_);
    x_ = node_velocity(r_, y_);
    k_ = 0;
    newton_.invalidate();
  }

  void canonical(VecQ& q, VecQ& p) const {
    q.template head<NR>() = r_;
    q(NR) = th_;
    q(NR + 1) = gx_;
    q(NR + 2) = gy_;
    const VecX c = node_velocity(r_, y_);
    MatQX vb;
    velocity_basis(r_, vb);
    const VecQ body = mm_ * (vb * c);
    const auto [st, ct] = dmath::sincos(th_);
    p = body;
    p(NR + 1) = ct * body(NR + 1) - st * body(NR + 2);
    p(NR + 2) = st * body(NR + 1) + ct * body(NR + 2);
  }

  bool state_finite() const {
    return all_finite(r_) && all_finite(y_) && std::isfinite(th_ + gx_ + gy_);
  }
  std::int64_t newton_iterations() const { return newton_.iterations(); }

  StepStatus step(double& residual_out) {
    const double t0 = static_cast<double>(k_) * h_, t1 = static_cast<double>(k_ + 1) * h_;
    rhs_ = y_;
    rhs_.template head<NR>() += (0.5 * h_) * shape_force(t0);
    auto residual = [this](const VecX& x, VecX& r) { eval_residual(x, r); };
    auto jacobian = [this](const VecX& x, MatX& jac) {
      VecX r0, r1, xt;
      forward_difference_jacobian([this](const VecX& y, VecX& r) { eval_residual(y, r); }, x, r0,
                                  r1, xt, jac);
    };
    VecX x = x_;
    const StepStatus st = newton_.solve(x, residual, jacobian, ns_, residual_out);
    if (st != StepStatus::kOk) return st;
    x_ = x;
    // Reconstruction (28) and the post-momentum pi^+ of this step.
    const VecR u = x.template head<NR>();
    Eigen::Vector3d xi;
    VecQ pl;
    velocity_and_momentum(x, xi, pl);
    const Eigen::Vector3d hxi = h_ * xi;
    const se2::Element g = R == Retraction::kExp ? se2::exp_map(hxi) : se2::cay_map(hxi);
    const auto [sin_th, cos_th] = dmath::sincos(th_);
    gx_ += cos_th * g.tx - sin_th * g.ty;
    gy_ += sin_th * g.tx + cos_th * g.ty;
    th_ += g.angle;
    r_ += h_ * u;
    ++k_;
    VecQ plus = pl;
    plus.template tail<3>() = dtau_inv(-hxi).transpose() * pl.template tail<3>();
    pi_map(r_, plus, y_);
    y_.template head<NR>() += (0.5 * h_) * shape_force(t1);
    return StepStatus::kOk;
  }

 private:
  static Eigen::Matrix3d dtau_inv(const Eigen::Vector3d& v) {
    return R == Retraction::kExp ? se2::dexp_inv(v) : se2::dcay_inv(v);
  }

  /// Shape part of the applied force at the current configuration and time t.
  VecR shape_force(double t) const {
    VecQ q, f;
    q.template head<NR>() = r_;
    q(NR) = th_;
    q(NR + 1) = gx_;
    q(NR + 2) = gy_;
    applied_force(sys_, q, t, f);
    return f.template head<NR>();
  }

  /// Canonical covector p -> body covector (p_r, p_theta, R(theta)^T (p_x, p_y)).
  void to_body(const VecQ& p, VecQ& body) const {
    const auto [st, ct] = dmath::sincos(th_);
    body = p;
    body(NR + 1) = ct * p(NR + 1) + st * p(NR + 2);
    body(NR + 2) = -st * p(NR + 1) + ct * p(NR + 2);
  }

  /// out = Pi(r) body = (pi_r - A(r)^T mu, E(r)^T mu).
  void pi_map(const VecR& r, const VecQ& body, VecX& out) const {
    MatConn conn;
    MatSym e;
    sys_.connection(r, conn);
    sys_.symmetry_basis(r, e);
    const Eigen::Vector3d mu = body.template tail<3>();
    out.template head<NR>() = body.template head<NR>() - conn.transpose() * mu;
    out.template tail<NS>() = e.transpose() * mu;
  }

  /// V(r) = [[I, 0], [-A(r), E(r)]], NQ x NX: (u, w) -> body velocity (u, xi) on D.
  void velocity_basis(const VecR& r, MatQX& vb) const {
    MatConn conn;
    MatSym e;
    sys_.connection(r, conn);
    sys_.symmetry_basis(r, e);
    vb.setZero();
    vb.template topLeftCorner<NR, NR>().setIdentity();
    vb.template bottomLeftCorner<3, NR>() = -conn;
    vb.template bottomRightCorner<3, NS>() = e;
  }

  /// The (u, w) at r whose momentum has Pi(r) MM V(r) (u, w) = y: (Pi MM V)^-1 y.
  VecX node_velocity(const VecR& r, const VecX& y) const {
    MatQX vb;
    velocity_basis(r, vb);
    MatQX mv = mm_ * vb;
    MatX g;
    for (int j = 0; j < NX; ++j) {
      VecX col;
      pi_map(r, mv.col(j), col);
      g.col(j) = col;
    }
    return g.partialPivLu().solve(y);
  }

  /// xi_k and (dl/du, dl/dxi) = MM (u, xi) for x = (u_k, w_k), at r_k+alpha.
  void velocity_and_momentum(const VecX& x, Eigen::Vector3d& xi, VecQ& pl) const {
    const VecR u = x.template head<NR>();
    const VecR ra = r_ + (kAlpha * h_) * u;
    MatConn conn;
    MatSym e;
    sys_.connection(ra, conn);
    sys_.symmetry_basis(ra, e);
    xi = e * x.template tail<NS>() - conn * u;
    VecQ vel;
    vel.template head<NR>() = u;
    vel.template tail<3>() = xi;
    pl = mm_ * vel;
  }

  /// F(x) = Pi(r_k) pi^-(x) - y_k - (h/2 f_k, 0).
  void eval_residual(const VecX& x, VecX& out) const {
    Eigen::Vector3d xi;
    VecQ pl;
    velocity_and_momentum(x, xi, pl);
    pl.template tail<3>() = dtau_inv(h_ * xi).transpose() * pl.template tail<3>();
    pi_map(r_, pl, out);
    out -= rhs_;
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  SimplifiedNewton<NX> newton_;
  typename S::MatQ mm_;
  VecR r_;
  double th_ = 0.0, gx_ = 0.0, gy_ = 0.0;
  VecX y_, x_, rhs_;
  std::int64_t k_ = 0;
};

}  // namespace nhsim

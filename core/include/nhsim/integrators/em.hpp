// `em`: the energy-momentum algorithm of [Gebhardt2020] §5 for the director rigid bodies: eq.
// (85)-(91) for the standard body (holonomic constraints only) and the specialised nonholonomic
// version eq. (92)-(95) for the non-twisting body, with average-vector-field constraint Jacobians
// (eq. (89), (93)).
//
// In the paper's unknowns q_{n+1}, lambda (NG multipliers of g(q) = 0), mu (the nonholonomic
// multipliers), with v_n = M^-1 p_n known, eq. (86)/(92) with the midpoint momenta (87):
//   (2 / h^2) M (q_{n+1} - q_n - h v_n) - Q_ext(q_{n+1/2}, t_{n+1/2}) + H_d^T lambda
//                                                                  + G_d^T mu = 0        (NQ)
//   g(q_{n+1}) = 0                                                                       (NG)
//   G_d (q_{n+1} - q_n) = 0                                                        (NC - NG)
//   v_{n+1} = 2 (q_{n+1} - q_n) / h - v_n,   p_{n+1} = M v_{n+1}.
// H_d and G_d are the AVF averages (1/2) int_{-1}^{1} of the constraint rows along the segment
// q(xi) (eq. (89), (93)), computed with 2-point Gauss-Legendre quadrature (exact for rows up to
// cubic in q; the director rows are linear, so it is the midpoint value).
// Unknowns (scaled so that Newton's componentwise tolerance and its round-off floor are those of
// the step itself, not of the coordinates): the mean velocity vbar = (q_{n+1} - q_n) / h [1/s]
// and the half impulses kappa = (h/2) (lambda, mu) [momentum units]. Multiplied by h/2, the
// first block reads M vbar = p_n + (h/2) (Q - H_d^T lambda - G_d^T mu). g(q_{n+1}) = 0 is
// imposed in two parts, which together are the same equation: the solve imposes
// H_d (q_{n+1} - q_n) = 0, i.e. g(q_{n+1}) = g(q_n) for quadratic g (H_d dq = g(q_{n+1}) - g(q_n)
// exactly, eq. (90), the form eq. (97) uses), and q_{n+1} = q_n + h vbar is then projected onto
// g = 0 by one Gauss-Newton step, q <- q - G^T (G G^T)^-1 g(q). The residual
//   (M vbar - p_n - (h/2) Q + Mu_d^T kappa,  Mu_d vbar)
// has round-off ~ eps |p| and eps |vbar|, independent of h; p_{n+1} = 2 M vbar - p_n.
// With exact solves and arithmetic g(q_n) = 0 and the projection does nothing; in floating
// point it removes the g(q) the solve left (round-off, the Newton tolerance) from the positions
// only. Imposing g(q_{n+1}) = 0 inside the solve instead puts that g(q_n) into vbar as a
// velocity g(q_n) / h and hence into p_{n+1}: with g(q_n) ~ eps, max |Pi3| of case 1 grew like
// 1 / h at any tolerance (2.6e-10 at h = 3.125e-4, newton_tol 1e-14). The earlier unknowns
// (q_{n+1}, h lambda, h mu) also had round-off ~ eps |q| in q_{n+1} - q_n, amplified by 2/h
// into the residual and the multipliers: Newton stalled at an increment ~ 1e-12 for
// h <= 6.25e-4.
// Properties (Thm 8, 9): with Q = 0, K_{n+1} = K_n exactly (eq. (97): the reactions do no work
// since H_d dq = g(q_{n+1}) - g(q_n) = 0 for quadratic g, and G_d dq = 0); Pi1, Pi2 of the
// non-twisting body are conserved (eq. (98)-(110)); the holonomic constraints hold at the nodes
// to round-off (the projection above). The velocity-level constraints (G(q_n) v_n = 0) hold only at
// the midpoints (eq. (94)), so at the nodes Pi3 and the velocity residuals are O(h^2), not zero.
// Second order.
//
// Newton: SimplifiedNewton with a forward-difference Jacobian (reused across steps), relative
// componentwise tolerance = the spec's newton_tol on (vbar, kappa) (default 1e-10, [Gebhardt2020]
// §6; tolerances down to ~1e-14 are reached). Times: t_n = n h counted from the last set_canonical
// (loads are functions of t).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>

#include "nhsim/controls.hpp"
#include "nhsim/eigen_util.hpp"
#include "nhsim/integrators/descriptors/em.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class EmMethod {
 public:
  static constexpr int NQ = S::NQ;
  static constexpr int NC = S::NC;
  static constexpr int NX = NQ + NC;
  using VecQ = typename S::VecQ;
  using MatCQ = typename S::MatCQ;
  using MatQ = Eigen::Matrix<double, NQ, NQ>;
  using VecX = Eigen::Matrix<double, NX, 1>;
  using MatX = Eigen::Matrix<double, NX, NX>;

  EmMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys), h_(h), ns_(ns), newton_(NX), m_(sys.mass_matrix_dyn(VecQ::Zero())) {
    q_.setZero();
    p_.setZero();
    x_.setZero();
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    k_ = 0;
    x_.setZero();
    newton_.invalidate();
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return newton_.iterations(); }

  StepStatus step(double& residual_out) {
    tmid_ = (static_cast<double>(k_) + 0.5) * h_;
    sys_.inv_mass_times(q_, p_, v_);
    predict();  // multipliers: those of the last step
    auto residual = [this](const VecX& x, VecX& r) { eval_residual(x, r); };
    auto jacobian = [this](const VecX& x, MatX& jac) {
      forward_difference_jacobian([this](const VecX& y, VecX& r) { eval_residual(y, r); }, x, r0_,
                                  r1_, xt_, jac);
    };
    const StepStatus st = newton_.solve(x_, residual, jacobian, ns_, residual_out);
    if (st != StepStatus::kOk) return st;
    vbar_ = x_.template head<NQ>();
    p_ = 2.0 * (m_ * vbar_) - p_;
    q_ += h_ * vbar_;
    project_positions();
    ++k_;
    return StepStatus::kOk;
  }

 private:
  /// q <- q - G^T (G G^T)^-1 g(q), G = Dg(q) (NG x NQ): one Gauss-Newton step onto g = 0, which
  /// removes what the solve left in g (the Newton tolerance, round-off) from the positions only.
  void project_positions() {
    sys_.holonomic_constraint(q_, g_);
    sys_.holonomic_jacobian(q_, gjac_);
    ggt_.noalias() = gjac_ * gjac_.transpose();
    ldlt_.compute(ggt_);
    y_ = ldlt_.solve(g_);
    q_.noalias() -= gjac_.transpose() * y_;
  }

  /// Predictor for vbar: each director rotated by the Cayley map of h w, w = 1/2 sum_i d_i x
  /// d_i' (the angular velocity of a rigid motion, d_i' = w x d_i), which is the EM step of the
  /// free rigid motion about a fixed axis (the midpoint rule gives tan(phi/2) = |w| h / 2) and
  /// keeps Newton in its basin at |w| h ~ 2 ([Gebhardt2020] case 2 after the load: |w| h ~ 2.2).
  /// vbar = (cay(2a) - I) d_i / h with cay(2a) - I = 2 / (1 + |a|^2) (a^ + a^ a^), a = h w / 2.
  void predict() {
    Eigen::Vector3d w = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) {
      w += Eigen::Vector3d(q_.template segment<3>(3 * i))
               .cross(Eigen::Vector3d(v_.template segment<3>(3 * i)));
    }
    const Eigen::Vector3d a = (0.25 * h_) * w;  // h w / 2 (the sum above is 2 w)
    Eigen::Matrix3d ah;
    ah << 0.0, -a(2), a(1), a(2), 0.0, -a(0), -a(1), a(0), 0.0;
    const Eigen::Matrix3d rmi = (2.0 / (h_ * (1.0 + a.squaredNorm()))) * (ah + ah * ah);
    for (int i = 0; i < 3; ++i) {
      x_.template segment<3>(3 * i) = rmi * q_.template segment<3>(3 * i);
    }
    for (int i = 3 * 3; i < NQ; ++i) x_(i) = v_(i);
  }

  /// r = (M vbar - p_n - (h/2) Q + Mu_d^T kappa, Mu_d vbar), x = (vbar, kappa); Mu_d the AVF
  /// average of the constraint rows (first NG rows: H_d, the rest: G_d).
  void eval_residual(const VecX& x, VecX& r) {
    vbar_ = x.template head<NQ>();
    dq_ = h_ * vbar_;
    // AVF average, 2-point Gauss-Legendre on xi in [-1, 1]: xi = +-1/sqrt(3), weights 1.
    constexpr double kGauss = 0.57735026918962576451;
    qm_ = q_ + 0.5 * dq_;
    qa_ = qm_ - (0.5 * kGauss) * dq_;
    qb_ = qm_ + (0.5 * kGauss) * dq_;
    sys_.constraint(qa_, mua_);
    sys_.constraint(qb_, mub_);
    mud_ = 0.5 * (mua_ + mub_);
    applied_force(sys_, qm_, tmid_, f_);
    r.template head<NQ>() =
        m_ * vbar_ - p_ - (0.5 * h_) * f_ + mud_.transpose() * x.template tail<NC>();
    r.template tail<NC>() = mud_ * vbar_;
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  SimplifiedNewton<NX> newton_;
  MatQ m_;
  VecQ q_, p_, v_, vbar_, dq_, qa_, qb_, qm_, f_;
  typename S::VecG g_, y_;
  typename S::MatGQ gjac_;
  Eigen::Matrix<double, S::NG, S::NG> ggt_;
  Eigen::LDLT<Eigen::Matrix<double, S::NG, S::NG>> ldlt_;
  MatCQ mua_, mub_, mud_;
  VecX x_, r0_, r1_, xt_;
  std::int64_t k_ = 0;
  double tmid_ = 0.0;
};

}  // namespace nhsim

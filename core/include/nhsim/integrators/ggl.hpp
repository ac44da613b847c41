// `ggl`: the first-order symplectic GGL variational integrator of [Kinon2023] §4.1, eq.
// (41a)-(41e), with its dissipative extension eq. (57a)-(57e) (§4.3) when the system has a Rayleigh
// dissipation matrix C(q) (eq. (53)-(54)). Holonomic constraints g(q) = 0 in redundant
// coordinates, constant mass matrix M, L = 1/2 v.Mv - V(q) (eq. (3)):
//   q^{n+1} - q^n = h v^n + h M^-1 G(qbar)^T gamma^{n+1},                                (41a)
//   p^{n+1} - p^n = -h grad V(q^n) - h G(q^n)^T lambda^n
//                   - h sum_k gamma_k^{n+1} D^2 g_k(qbar) M^-1 p^{n+1}  [- h C(q^n) v^n],   (41b)
//   M v^n = (I + h sum_k gamma_k^{n+1} D^2 g_k(qbar) M^-1) p^{n+1},                       (41c)
//   g(q^{n+1}) = 0,                                                                        (41d)
//   G(qbar) M^-1 p^{n+1} = 0,          qbar = q^n + h v^n.                                 (41e)
//
// Reading of the paper (documented choices):
// * (41b) as printed has "M^-1 p^n" in the gamma term; the stationarity condition (40b) it comes
//   from, and the symplecticity proof (42b) (D_1 g^v(qbar, p^{n+1})), have M^-1 p^{n+1}. The
//   derivative of the action (39) w.r.t. q^n gives p^{n+1}, and only with p^{n+1} is the
//   momentum map L3 of the top conserved exactly (checked in the tests), so p^{n+1} is used.
// * The multiplier index shift: lambda^n multiplies G(q^n)^T, i.e. it is the multiplier of the
//   constraint g(q^n) = 0 that the PREVIOUS step enforced (40b after the shift n+1 -> n). In
//   step n it is nevertheless an unknown of that step (the paper's unknown list (q^{n+1},
//   p^{n+1}, v^n, lambda^n, gamma^{n+1})): it is the impulse that, through p^{n+1} and v^n,
//   puts q^{n+1} on g = 0. Nothing needs to be carried between steps except (q^n, p^n), so
//   lambda^0 is simply an unknown of the first step; p^0 is the given initial momentum (which
//   should satisfy G(q^0) M^-1 p^0 = 0: the spec validation checks it). The previous step's
//   (lambda, gamma) only serve as the Newton predictor.
// * The Stepper state is (q^n, p^n) in canonical coordinates. q^n satisfies g(q^n) = 0 to the
//   Newton tolerance; p^n satisfies the velocity-level constraint at the intermediate point
//   qbar^{n-1} (41e), not at q^n, so max|G(q^n) M^-1 p^n| is small but not zero ([Kinon2023]
//   Fig. 8, 19); it is exactly zero for constraints with a constant Jacobian (Fig. 21).
// * The dissipative term (57b) is -h C(q^n) v^n with v^n the discrete velocity of (41c); the
//   paper writes F_d = C v^n and subtracts it in (57b), so the force is -C v (eq. (53)).
//
// Solution of one step: q^{n+1} and v^n are explicit in the remaining unknowns, so Newton runs
// on y = (p^{n+1}, Lambda = h lambda^n, gamma^{n+1}) in R^{NQ + 2 NG}:
//   u = M^-1 p,  w = sum_k gamma_k D^2 g_k u,  v = u + h M^-1 w,  qbar = q^n + h v,
//   q^{n+1} = qbar + h M^-1 G(qbar)^T gamma,
//   F1 = p - p^n + h grad V(q^n) + G(q^n)^T Lambda + h w [+ h C(q^n) v],
//   F2 = g(q^{n+1}) / h,   F3 = G(qbar) u,
// with the exact (analytic) Jacobian, which needs the constraint Hessians D^2 g_k: the system
// supplies holonomic_hessian_contract(w, C) (rows (D^2 g_k w)^T) and declares the Hessians
// constant (kQuadraticHolonomic: director constraints are quadratic). The Jacobian is factorised
// by SimplifiedNewton (LU reused across steps while the iteration contracts).
// Newton works in scaled unknowns x = (h M^-1 p, h s .* Lambda, h s .* gamma), s_k = (G M^-1
// G^T)_kk at the initial state: all three are displacements (what p, Lambda, gamma do to q^{n+1}
// in one step), so the componentwise increment tolerance bounds the error of q^{n+1}, hence of
// g(q^{n+1}), directly, and its round-off floor (eps |q|) does not grow as h shrinks. In the
// physical unknowns the floor of p is ~ eps |q| M / h, which stalls a 1e-12 tolerance at small h.
// When SimplifiedNewton fails, a full Newton with a rank-revealing (complete orthogonal
// decomposition, threshold 1e-10) minimum-norm solve is tried before the step is reported failed:
// at the singular configurations of a linkage (G loses rank, [Kinon2023] §5.2) the multipliers are
// not determined and their round-off stalls the increment test; the minimum-norm increments leave
// that direction alone. Measured on the four-bar (h = 1e-3): with the paper's tolerance 1e-9 the
// run passes every singular configuration to T = 10 s; tolerances <= 1e-10 still stall at the
// first one (theta ~ 0.005 rad, t ~ 0.71 s).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <utility>

#include "nhsim/eigen_util.hpp"
#include "nhsim/holonomic.hpp"
#include "nhsim/integrators/descriptors/ggl.hpp"
#include "nhsim/newton.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// True when S supplies a Rayleigh dissipation matrix C(q) ([Kinon2023] eq. (53)-(54)).
template <class S>
inline constexpr bool has_dissipation_matrix = requires(const S& s, const typename S::VecQ& q,
                                                        Eigen::Matrix<double, S::NQ, S::NQ>& c) {
  s.dissipation_matrix(q, c);
};

/// The capacity of S's holonomic constraint count: S::kMaxNG where it declares one, else S::NG.
template <class S>
constexpr int capacity_ng() {
  if constexpr (requires { S::kMaxNG; }) {
    return S::kMaxNG;
  } else {
    return S::NG;
  }
}

template <class S>
class GglMethod {
 public:
  static constexpr int NQ = S::NQ;
  static constexpr int NG = S::NG;
  /// Unknowns (p, h Lambda, h gamma): NQ + 2 NG, or Eigen::Dynamic for a system of dynamic sizes.
  static constexpr int NY =
      NQ == Eigen::Dynamic || NG == Eigen::Dynamic ? Eigen::Dynamic : NQ + 2 * NG;
  static constexpr int NYw = workspace_dimension(NY);  ///< their storage (size policy)
  using VecQ = typename S::VecQ;
  using VecG = typename S::VecG;
  using VecY = Eigen::Matrix<double, NYw, 1>;
  using MatQ = CapacityMatrix<NQ, NQ, capacity_nq<S>(), capacity_nq<S>()>;
  using MatGQ = typename S::MatGQ;
  using MatQG = CapacityMatrix<NQ, NG, capacity_nq<S>(), capacity_ng<S>()>;
  using MatY = Eigen::Matrix<double, NYw, NYw>;

  GglMethod(const S& sys, double h, NewtonSettings ns)
      : sys_(sys),
        h_(h),
        ns_(ns),
        nq_(sys.nq()),
        ng_(holonomic_count(sys)),
        ny_(nq_ + 2 * ng_),
        newton_(ny_),
        y_(ny_),
        x_(ny_),
        yt_(ny_),
        r_(ny_),
        dx_(ny_),
        jac_(ny_, ny_),
        cod_(ny_, ny_),
        jm_(ny_, nq_),
        cw_(ny_),
        yw_(ny_),
        hw_(ny_) {
    // Sized by resize(), not by constructor arguments (a fixed-size vector of size 1 would take
    // the argument as its value); for fixed sizes these only assert the size.
    for (VecQ* v : {&q_, &p_, &gradv_, &u_, &w_, &v_, &qbar_, &q1_, &ej_}) v->resize(nq_);
    for (VecG* v : {&lam_, &gam_, &scale_, &gval_}) v->resize(ng_);
    for (MatQ* m : {&mass_, &minv_, &damp_, &hg_, &a_, &b_}) m->resize(nq_, nq_);
    for (MatGQ* m : {&g0_, &gbar_, &g1_, &cu_, &cej_}) m->resize(ng_, nq_);
    dvdg_.resize(nq_, ng_);
    q_.setZero();
    p_.setZero();
    lam_.setZero();
    gam_.setZero();
    mass_ = MatQ(sys_.mass_matrix_dyn(q_));
    minv_ = mass_.inverse();
    scale_.setOnes();
    damp_.setZero();
  }

  void set_canonical(const VecQ& q, const VecQ& p) {
    q_ = q;
    p_ = p;
    lam_.setZero();
    gam_.setZero();
    newton_.invalidate();
    MatGQ gm(ng_, nq_);
    sys_.holonomic_jacobian(q_, gm);
    scale_ = (gm * minv_ * gm.transpose()).diagonal();
    for (int k = 0; k < ng_; ++k) {
      if (!(scale_(k) > 0.0) || !std::isfinite(scale_(k))) scale_(k) = 1.0;
    }
  }
  void canonical(VecQ& q, VecQ& p) const {
    q = q_;
    p = p_;
  }
  bool state_finite() const { return all_finite(q_) && all_finite(p_); }
  std::int64_t newton_iterations() const { return newton_.iterations() + fallback_iterations_; }

  /// max_k |(G(qbar) M^-1 p^{n+1})_k| of the last step: (41e), zero to the Newton tolerance.
  double intermediate_velocity_residual() const { return last_intermediate_; }
  /// lambda^n and gamma^{n+1} of the last step (lambda in the system's force units).
  const VecG& lambda() const { return lam_; }
  const VecG& gamma() const { return gam_; }

  StepStatus step(double& residual) {
    // Per-step constants: q^n terms.
    sys_.grad_potential(q_, gradv_);
    sys_.holonomic_jacobian(q_, g0_);
    if constexpr (has_dissipation_matrix<S>) sys_.dissipation_matrix(q_, damp_);
    // Predictor: previous multipliers, momentum of the explicit part of (41b).
    y_.template head<NQ>(nq_) = p_ - h_ * gradv_ - g0_.transpose() * (h_ * lam_);
    y_.template segment<NG>(nq_, ng_) = h_ * lam_;
    y_.template segment<NG>(nq_ + ng_, ng_) = gam_;
    to_scaled(y_, x_);
    const StepStatus st = newton_.solve(
        x_,
        [this](const VecY& x, VecY& r) {
          from_scaled(x, yt_);
          residual_at(yt_, r);
        },
        [this](const VecY& x, MatY& jac) {
          from_scaled(x, yt_);
          jacobian_at(yt_, jac);
          // d/dx = d/dy . dy/dx: p = M x_p / h, Lambda = x_L / (h s), gamma = x_g / (h s).
          scale_multiplier_columns(jac);
        },
        ns_, residual);
    if (st != StepStatus::kOk && !rank_revealing_newton(residual)) return st;
    from_scaled(x_, y_);
    unpack(y_);  // q1_, qbar_, u_ of the solution
    q_ = q1_;
    p_ = y_.template head<NQ>(nq_);
    lam_ = y_.template segment<NG>(nq_, ng_) / h_;
    gam_ = y_.template segment<NG>(nq_ + ng_, ng_);
    sys_.holonomic_jacobian(qbar_, gbar_);
    last_intermediate_ = (gbar_ * u_).cwiseAbs().maxCoeff();
    return StepStatus::kOk;
  }

 private:
  /// Fallback when SimplifiedNewton fails: full Newton with a rank-revealing (complete
  /// orthogonal) solve, minimum-norm increments. Near the singular configurations of a linkage
  /// (G(q) losing rank) the multipliers are not determined and their round-off stalls the
  /// increment test; the minimum-norm step leaves that direction alone. x_ holds the predictor.
  bool rank_revealing_newton(double& residual) {
    for (int it = 0; it < ns_.max_iter; ++it) {
      from_scaled(x_, yt_);
      residual_at(yt_, r_);
      jacobian_at(yt_, jac_);
      scale_multiplier_columns(jac_);
      cod_.setThreshold(1e-10);
      cod_.compute(jac_);
      min_norm_solve(r_, dx_);
      x_ -= dx_;
      ++fallback_iterations_;
      residual = (dx_.cwiseAbs().array() / x_.cwiseAbs().cwiseMax(1.0).array()).maxCoeff();
      if (!std::isfinite(residual)) return false;
      if (residual <= ns_.tol) return constraints_hold_at(x_);
    }
    return false;
  }

  /// The Jacobian in the scaled unknowns: d/dx = d/dy . dy/dx with p = M x_p / h,
  /// Lambda = x_L / (h s), gamma = x_g / (h s). jac's first NQ columns times M / h go through a
  /// workspace: as one expression the product would be a heap temporary at every Jacobian.
  void scale_multiplier_columns(MatY& jac) {
    jm_.noalias() = jac.template leftCols<NQ>(nq_) * mass_;
    jac.template leftCols<NQ>(nq_) = jm_ / h_;
    for (int k = 0; k < ng_; ++k) {
      jac.col(nq_ + k) /= h_ * scale_(k);
      jac.col(nq_ + ng_ + k) /= h_ * scale_(k);
    }
  }

  /// dx = cod_.solve(b), the minimum-norm least-squares solution, without heap memory:
  /// Eigen's solve copies b and allocates Householder workspaces on every call. The same
  /// operations in the same order (Q^T b by the reflectors H_0 ... H_{r-1}, the triangular
  /// solve with T_11, Z^T by its reflectors, the column permutation), so the same bits.
  void min_norm_solve(const VecY& b, VecY& dx) {
    const Eigen::Index n = b.size(), rank = cod_.rank();
    const MatY& qtz = cod_.matrixQTZ();
    cw_ = b;
    for (Eigen::Index k = 0; k < rank; ++k) {
      cw_.tail(n - k).applyHouseholderOnTheLeft(qtz.col(k).tail(n - k - 1), cod_.hCoeffs().coeff(k),
                                                hw_.data());
    }
    yw_.setZero();
    if (rank > 0) {
      yw_.head(rank) = cw_.head(rank);
      qtz.topLeftCorner(rank, rank)
          .template triangularView<Eigen::Upper>()
          .solveInPlace(yw_.head(rank));
    }
    for (Eigen::Index k = 0; k < rank && rank < n; ++k) {  // y = Z^T (z, 0): as Eigen's order
      if (k != rank - 1) std::swap(yw_(k), yw_(rank - 1));
      yw_.segment(rank - 1, n - rank + 1)
          .applyHouseholderOnTheLeft(qtz.row(k).tail(n - rank).transpose(), cod_.zCoeffs()(k),
                                     hw_.data());
      if (k != rank - 1) std::swap(yw_(k), yw_(rank - 1));
    }
    const auto& perm = cod_.colsPermutation().indices();
    for (Eigen::Index i = 0; i < n; ++i) dx(perm(i)) = yw_(i);
  }

  /// The minimum-norm increments drop any residual component outside range(J), so a stalled
  /// increment does not prove (41d)-(41e): accept the fallback's solution only where
  /// max |g(q^{n+1})| and max |G(qbar) u| are within 100 newton_tol (g in the system's units).
  bool constraints_hold_at(const VecY& x) {
    from_scaled(x, yt_);
    unpack(yt_);
    sys_.holonomic_constraint(q1_, gval_);
    const double g_pos = gval_.cwiseAbs().maxCoeff();
    sys_.holonomic_jacobian(qbar_, gbar_);
    const double g_vel = (gbar_ * u_).cwiseAbs().maxCoeff();
    const double bound = 100.0 * ns_.tol;
    return g_pos <= bound && g_vel <= bound * std::max(1.0, u_.cwiseAbs().maxCoeff());
  }

  void to_scaled(const VecY& y, VecY& x) const {
    x.template head<NQ>(nq_).noalias() = h_ * (minv_ * y.template head<NQ>(nq_));
    x.template segment<NG>(nq_, ng_) = h_ * scale_.cwiseProduct(y.template segment<NG>(nq_, ng_));
    x.template segment<NG>(nq_ + ng_, ng_) =
        h_ * scale_.cwiseProduct(y.template segment<NG>(nq_ + ng_, ng_));
  }
  void from_scaled(const VecY& x, VecY& y) const {
    y.template head<NQ>(nq_).noalias() = (mass_ * x.template head<NQ>(nq_)) / h_;
    y.template segment<NG>(nq_, ng_) = x.template segment<NG>(nq_, ng_).cwiseQuotient(h_ * scale_);
    y.template segment<NG>(nq_ + ng_, ng_) =
        x.template segment<NG>(nq_ + ng_, ng_).cwiseQuotient(h_ * scale_);
  }

  /// From y: u = M^-1 p, cu = (rows D^2 g_k u), w = cu^T gamma, v, qbar, G(qbar), q^{n+1}.
  void unpack(const VecY& y) {
    const auto p = y.template head<NQ>(nq_);
    const auto gam = y.template segment<NG>(nq_ + ng_, ng_);
    u_.noalias() = minv_ * p;
    sys_.holonomic_hessian_contract(u_, cu_);
    w_.noalias() = cu_.transpose() * gam;
    v_ = u_ + h_ * (minv_ * w_);
    qbar_ = q_ + h_ * v_;
    sys_.holonomic_jacobian(qbar_, gbar_);
    q1_ = qbar_ + h_ * (minv_ * (gbar_.transpose() * gam));
  }

  void residual_at(const VecY& y, VecY& r) {
    unpack(y);
    auto f1 = r.template head<NQ>(nq_);
    f1 = y.template head<NQ>(nq_) - p_ + h_ * gradv_ +
         g0_.transpose() * y.template segment<NG>(nq_, ng_) + h_ * w_;
    if constexpr (has_dissipation_matrix<S>) f1 += h_ * (damp_ * v_);
    sys_.holonomic_constraint(q1_, gval_);
    r.template segment<NG>(nq_, ng_) = gval_ / h_;
    r.template segment<NG>(nq_ + ng_, ng_) = gbar_ * u_;
  }

  /// The exact Jacobian of residual_at (see the file comment for the chain rule).
  void jacobian_at(const VecY& y, MatY& jac) {
    unpack(y);
    const auto gam = y.template segment<NG>(nq_ + ng_, ng_);
    // H(gamma) = sum_k gamma_k D^2 g_k, column j = (rows D^2 g_k e_j)^T gamma.
    for (int j = 0; j < nq_; ++j) {
      ej_.setZero();
      ej_(j) = 1.0;
      sys_.holonomic_hessian_contract(ej_, cej_);
      hg_.col(j) = cej_.transpose() * gam;
    }
    sys_.holonomic_jacobian(q1_, g1_);
    const MatQ id = MatQ::Identity(nq_, nq_);
    a_.noalias() = minv_ + h_ * (minv_ * hg_ * minv_);  // dv/dp
    b_.noalias() = id + h_ * (minv_ * hg_);             // dq1/dqbar
    dvdg_.noalias() = h_ * (minv_ * cu_.transpose());   // dv/dgamma
    jac.setZero();
    const int n = nq_, m = ng_;
    // F1
    jac.template block<NQ, NQ>(0, 0, n, n) = id + h_ * (hg_ * minv_);
    jac.template block<NQ, NG>(0, n, n, m) = g0_.transpose();
    jac.template block<NQ, NG>(0, n + m, n, m) = h_ * cu_.transpose();
    if constexpr (has_dissipation_matrix<S>) {
      jac.template block<NQ, NQ>(0, 0, n, n) += h_ * (damp_ * a_);
      jac.template block<NQ, NG>(0, n + m, n, m) += h_ * (damp_ * dvdg_);
    }
    // F2 = g(q1) / h: dq1 = B h dv + h M^-1 G(qbar)^T dgamma.
    jac.template block<NG, NQ>(n, 0, m, n) = g1_ * b_ * a_;
    jac.template block<NG, NG>(n, n + m, m, m) = g1_ * (b_ * dvdg_ + minv_ * gbar_.transpose());
    // F3 = G(qbar) u: d = (rows D^2 g_k u) h dv + G(qbar) M^-1 dp.
    jac.template block<NG, NQ>(n + m, 0, m, n) = h_ * (cu_ * a_) + gbar_ * minv_;
    jac.template block<NG, NG>(n + m, n + m, m, m) = h_ * (cu_ * dvdg_);
  }

  const S& sys_;
  double h_;
  NewtonSettings ns_;
  int nq_, ng_, ny_;  // sizes: NQ, NG, NY where fixed
  SimplifiedNewton<NYw> newton_;
  VecQ q_, p_;
  VecG lam_, gam_;
  MatQ mass_, minv_, damp_;
  VecG scale_;
  double last_intermediate_ = 0.0;
  // workspaces
  VecY y_, x_, yt_, r_, dx_;
  MatY jac_;
  Eigen::CompleteOrthogonalDecomposition<MatY> cod_;
  Eigen::Matrix<double, NYw, NQ> jm_;  // scale_momentum_columns
  VecY cw_, yw_, hw_;  // min_norm_solve: Q^T b, the permuted solution, a Householder workspace
  std::int64_t fallback_iterations_ = 0;
  VecQ gradv_, u_, w_, v_, qbar_, q1_, ej_;
  VecG gval_;
  MatGQ g0_, gbar_, g1_, cu_, cej_;
  MatQ hg_, a_, b_;
  MatQG dvdg_;
};

}  // namespace nhsim

// The adapted frame of seed 001 §3.3 from a Householder QR factorisation of the constraint
// matrix A(q) = mu(q)^T (nq x nc): X(q) = the last nq - nc columns of Q, an orthonormal basis of
// D_q = ker mu(q) (X^T X = I, mu X = 0). Algorithm 1 (QRdiff) also gives dX/dq^i by
// differentiating the Householder reflections, given dA/dq^i.
//
// Sign vector s in {+1, -1}^nc: reflection k maps the column x = R_{k:n, k} onto -s_k |x| e_k
// (w~ = x + s_k |x| e_k). choose_signs() picks s_k = sign(x_k) (no cancellation) at a point;
// the integrators freeze s for a whole step so that X is smooth within the step.
//
// Indexing: 0-based here (Algorithm 1 is 1-based in j). All storage is dynamic and allocated at
// construction; compute() allocates nothing.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <vector>

namespace nhsim {

class HouseholderFrame {
 public:
  /// nq: dimension of Q; nc: number of constraints (0 <= nc < nq).
  HouseholderFrame(int nq, int nc)
      : n_(nq),
        nc_(nc),
        s_(nc),
        q_(nq, nq),
        r_(nq, nc),
        wt_(nq),
        w_(nq),
        dwt_(nq),
        dw_(nq),
        u_(nc),
        du_(nc),
        qw_(nq),
        outer1_(nq, nc),
        outer2_(nq, nc),
        dq_(nq, Eigen::MatrixXd(nq, nq)),
        dr_(nq, Eigen::MatrixXd(nq, nc)) {
    s_.setOnes();
  }

  int nq() const { return n_; }
  int nc() const { return nc_; }
  int nr() const { return n_ - nc_; }

  /// s_k = sign of the pivot entry R_kk before reflection k (+1 for 0), for A = mu^T.
  void choose_signs(const Eigen::MatrixXd& a) {
    r_ = a;
    for (int k = 0; k < nc_; ++k) {
      s_(k) = r_(k, k) >= 0.0 ? 1.0 : -1.0;
      reflect(k, false);
    }
  }
  const Eigen::VectorXd& signs() const { return s_; }
  void set_signs(const Eigen::VectorXd& s) { s_ = s; }

  /// X(q) from A = mu(q)^T with the current signs (no derivatives).
  void compute(const Eigen::MatrixXd& a) {
    q_.setIdentity();
    r_ = a;
    for (int k = 0; k < nc_; ++k) reflect(k, false);
  }

  /// X(q) and dX/dq^i (Algorithm 1) from A and da[i] = dA/dq^i, i = 0..nq-1.
  void compute_with_derivatives(const Eigen::MatrixXd& a, const std::vector<Eigen::MatrixXd>& da) {
    q_.setIdentity();
    r_ = a;
    for (int i = 0; i < n_; ++i) {
      dq_[static_cast<std::size_t>(i)].setZero();
      dr_[static_cast<std::size_t>(i)] = da[static_cast<std::size_t>(i)];
    }
    for (int k = 0; k < nc_; ++k) reflect(k, true);
  }

  /// The frame X = Q_{:, nc:} (nq x (nq - nc)).
  auto x() const { return q_.rightCols(n_ - nc_); }
  /// dX/dq^i (valid after compute_with_derivatives).
  auto dx(int i) const { return dq_[static_cast<std::size_t>(i)].rightCols(n_ - nc_); }

 private:
  /// Householder step k of Algorithm 1 on R (and Q, and their derivatives if `derivs`).
  void reflect(int k, bool derivs) {
    const int len = n_ - k;
    const double nx = r_.col(k).tail(len).norm();
    wt_.setZero();
    wt_.tail(len) = r_.col(k).tail(len);
    wt_(k) += s_(k) * nx;
    const double nw = wt_.norm();
    if (nw == 0.0) return;  // zero column: nothing to reflect (rank-deficient mu)
    w_ = wt_ / nw;
    u_.noalias() = r_.transpose() * w_;
    if (derivs) {
      for (int i = 0; i < n_; ++i) {
        Eigen::MatrixXd& dr = dr_[static_cast<std::size_t>(i)];
        Eigen::MatrixXd& dq = dq_[static_cast<std::size_t>(i)];
        const double dnx = nx > 0.0 ? dr.col(k).tail(len).dot(r_.col(k).tail(len)) / nx : 0.0;
        dwt_.setZero();
        dwt_.tail(len) = dr.col(k).tail(len);
        dwt_(k) += s_(k) * dnx;
        const double dnw = dwt_.dot(wt_) / nw;
        dw_ = (dwt_ * nw - wt_ * dnw) / (nw * nw);
        du_.noalias() = r_.transpose() * dw_;
        du_.noalias() += dr.transpose() * w_;
        // dR' = dR - 2 (dw u^T + w du^T), the outer products in place (a sum of products in
        // one expression would allocate each as a temporary).
        outer1_.noalias() = dw_ * u_.transpose();
        outer2_.noalias() = w_ * du_.transpose();
        dr.noalias() -= 2.0 * (outer1_ + outer2_);
        // dQ' = dQ - 2 dQ w w^T - 2 Q (dw w^T + w dw^T)
        qw_.noalias() = dq * w_;
        dq.noalias() -= 2.0 * qw_ * w_.transpose();
        qw_.noalias() = q_ * dw_;
        dq.noalias() -= 2.0 * qw_ * w_.transpose();
        qw_.noalias() = q_ * w_;
        dq.noalias() -= 2.0 * qw_ * dw_.transpose();
      }
    }
    r_.noalias() -= 2.0 * w_ * u_.transpose();
    qw_.noalias() = q_ * w_;
    q_.noalias() -= 2.0 * qw_ * w_.transpose();
  }

  int n_, nc_;
  Eigen::VectorXd s_;
  Eigen::MatrixXd q_, r_;
  Eigen::VectorXd wt_, w_, dwt_, dw_, u_, du_, qw_;
  Eigen::MatrixXd outer1_, outer2_;  // nq x nc
  std::vector<Eigen::MatrixXd> dq_, dr_;
};

}  // namespace nhsim

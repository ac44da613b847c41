// The adapted frame of [Celledoni2019] §3.3 from a Householder QR factorisation of the constraint
// matrix A(q) = mu(q)^T (nq x nc): X(q) = the last nq - nc columns of Q, an orthonormal basis of
// D_q = ker mu(q) (X^T X = I, mu X = 0). Algorithm 1 (QRdiff) differentiates the Householder
// reflections, given dA/dq^i.
//
// Q = H_0 H_1 ... H_{nc-1}, H_k = I - 2 w_k w_k^T, is never formed: the frame keeps the unit
// vectors w_k and applies Q, Q^T (or Q from the right) to what the integrator needs, O(nq nc)
// per vector. Likewise the derivatives: gonzalez_r needs dX/dq^i only through p^T dX/dq^i, so
// Algorithm 1 is run in adjoint form, carrying the row vectors y = p^T Q_k and t_i = p^T dQ_k/dq^i
// through the reflections (Q_k = H_0 ... H_k) instead of the nq x nq matrices dQ/dq^i:
//   p^T dQ_k = (p^T dQ_{k-1}) H_k + (p^T Q_{k-1}) dH_k,  dH_k = -2 (dw_k w_k^T + w_k dw_k^T).
// That is O(nq nc (nq + nc)) per coordinate, not O(nq^2 nc).
//
// Sign vector s in {+1, -1}^nc: reflection k maps the column x = R_{k:n, k} onto -s_k |x| e_k
// (w~ = x + s_k |x| e_k). choose_signs() picks s_k = sign(x_k) (no cancellation) at a point;
// the integrators freeze s for a whole step so that X is smooth within the step.
//
// Sizes: NQ, NC fixed, or Eigen::Dynamic with capacities MQ, MC (inline storage; Eigen::Dynamic:
// on the heap). All storage is sized at construction; nothing here allocates afterwards.
// Indexing: 0-based (Algorithm 1 is 1-based in j).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "nhsim/system_types.hpp"

namespace nhsim {

template <int NQ = Eigen::Dynamic, int NC = Eigen::Dynamic, int MQ = NQ, int MC = NC>
class HouseholderFrame {
 public:
  using VecQ = CapacityMatrix<NQ, 1, MQ, 1>;
  using VecC = CapacityMatrix<NC, 1, MC, 1>;
  using MatQC = CapacityMatrix<NQ, NC, MQ, MC>;
  using MatQ = CapacityMatrix<NQ, NQ, MQ, MQ>;
  /// d mu_c / dq (nq x nq), one per constraint row (heap for dynamic sizes: sized once, at
  /// construction).
  using Jacobian = Eigen::Matrix<double, NQ, NQ>;

  /// nq: dimension of Q; nc: number of constraints (0 <= nc < nq).
  HouseholderFrame(int nq, int nc)
      : n_(nq),
        nc_(nc),
        s_(nc),
        r_(nq, nc),
        w_(nq, nc),
        active_(static_cast<std::size_t>(nc), 0),
        wt_(nq),
        xk_(nq),
        y_(nq),
        dn_(nq),
        tq_(nq, nq),
        dw_(nq, nq),
        dr_(static_cast<std::size_t>(nc), Jacobian(nq, nq)) {
    s_.setOnes();
    w_.setZero();
  }

  int nq() const { return n_; }
  int nc() const { return nc_; }
  int nr() const { return n_ - nc_; }

  /// s_k = sign of the pivot entry R_kk before reflection k (+1 for 0), for A = mu^T.
  template <class A>
  void choose_signs(const A& a) {
    if (nc_ == 1) {
      s_(0) = a(0, 0) >= 0.0 ? 1.0 : -1.0;
      return;
    }
    r_ = a;
    for (int k = 0; k < nc_; ++k) {
      s_(k) = r_(k, k) >= 0.0 ? 1.0 : -1.0;
      reflect(k);
    }
  }
  const VecC& signs() const { return s_; }
  void set_signs(const VecC& s) { s_ = s; }

  /// The reflections of A = mu(q)^T (nq x nc) with the current signs; X(q) follows.
  template <class A>
  void compute(const A& a) {
    if (nc_ == 1) {  // one reflection: nothing reads R = H_0 A afterwards
      one_reflector(a.col(0));
      return;
    }
    r_ = a;
    for (int k = 0; k < nc_; ++k) reflect(k);
  }

  /// b <- Q b for b with nq rows (a vector or a matrix). X u is Q (0, u).
  template <class B>
  void apply_q(B& b) const {
    for (int k = nc_ - 1; k >= 0; --k) reflect_columns(k, b);
  }
  /// b <- Q^T b for b with nq rows. X^T v is the last nq - nc entries of Q^T v.
  template <class B>
  void apply_qt(B& b) const {
    for (int k = 0; k < nc_; ++k) reflect_columns(k, b);
  }
  /// b <- b Q for b with nq columns. b X is the last nq - nc columns of b Q.
  template <class B>
  void apply_q_right(B& b) const {
    for (int k = 0; k < nc_; ++k) {
      if (!active_[static_cast<std::size_t>(k)]) continue;
      const int len = n_ - k;
      const auto w = w_.col(k).tail(len);
      for (Eigen::Index j = 0; j < b.rows(); ++j) {
        const double c = 2.0 * b.row(j).tail(len).dot(w.transpose());
        b.row(j).tail(len) -= c * w.transpose();
      }
    }
  }

  /// t.col(i) = (p^T dX/dq^i)^T, i = 0..nq-1 ((nq - nc) x nq), by Algorithm 1 in adjoint form
  /// (see the file comment) from A = mu(q)^T, p (length nq) and da[c] = d(column c of A)/dq,
  /// the nq x nq Jacobian of constraint row c: da[c](j, i) = d mu_cj / dq^i. All coordinates
  /// at once: column i of each nq x nq matrix below belongs to q^i. Also leaves the reflections
  /// of A, as compute(a) does.
  template <class A, class P, class T>
  void pullback_derivatives(const A& a, const std::vector<Jacobian>& da, const P& p, T& t) {
    r_ = a;
    y_ = p;
    // dR of the columns that later reflections change (column 0 is read once, from da).
    for (int c = 1; c < nc_; ++c) {
      dr_[static_cast<std::size_t>(c)] = da[static_cast<std::size_t>(c)];
    }
    bool t_zero = true;  // tq_ = 0 until the first reflection
    for (int k = 0; k < nc_; ++k) {
      xk_ = r_.col(k);
      xk_.head(k).setZero();
      const double nx = xk_.norm();
      const double nw = reflector(k, nx);
      if (nw == 0.0) continue;
      const auto w = w_.col(k);
      // dw~ = dx + s_k d|x| e_k, d|w~|, dw = (dw~ - w~ d|w~| / |w~|) / |w~|, per coordinate.
      dw_ = k == 0 ? da[0] : dr_[static_cast<std::size_t>(k)];
      dw_.topRows(k).setZero();
      if (nx > 0.0) {
        dn_.noalias() = dw_.transpose() * xk_;
        dw_.row(k) += (s_(k) / nx) * dn_.transpose();
      }
      const double inv = 1.0 / nw;
      dn_.noalias() = dw_.transpose() * wt_;
      dw_.noalias() -= (wt_ * (inv * inv)) * dn_.transpose();
      dw_ *= inv;
      // Later columns of dR: dR_c -= 2 (dw u_c + w du_c^T), du_c = dw^T R_c + dR_c^T w.
      for (int c = k + 1; c < nc_; ++c) {
        Jacobian& drc = dr_[static_cast<std::size_t>(c)];
        const double uc = w.dot(r_.col(c));
        dn_.noalias() = dw_.transpose() * r_.col(c);
        dn_.noalias() += drc.transpose() * w;
        drc -= (2.0 * uc) * dw_;
        drc.noalias() -= (2.0 * w) * dn_.transpose();
      }
      // t_i <- t_i H_k + y dH_k = t_i - 2 (t_i . w + y . dw_i) w - 2 (y . w) dw_i.
      const double yw = y_.dot(w);
      dn_.noalias() = dw_.transpose() * y_;
      if (t_zero) {
        tq_.noalias() = (-2.0 * w) * dn_.transpose();
        t_zero = false;
      } else {
        dn_.noalias() += tq_.transpose() * w;
        tq_.noalias() -= (2.0 * w) * dn_.transpose();
      }
      tq_ -= (2.0 * yw) * dw_;
      reflect_r(k);
      y_ -= (2.0 * yw) * w;
    }
    if (t_zero) tq_.setZero();
    t = tq_.bottomRows(n_ - nc_);
  }

  // ---- one constraint row (nc = 1): Q = H_0 = I - 2 w w^T, w = w~ / |w~|, w~ = x + s |x| e_0,
  // x = a = mu^T, X = the last nq - 1 columns of H_0. Along a direction y, with dx = da y:
  //   dw~ = dx + s (x . dx / |x|) e_0,   dw = (dw~ - w (w . dw~)) / |w~|,
  // and p^T dX[y] e_j = -2 ((p . dw) w_j + (p . w) dw_j) (j >= 1). The two products with
  // t = p^T dX below (t as pullback_derivatives writes it) cost one product with da each, with
  // every dot product taken from dx or the inputs, so that none waits on another. da(j, i) =
  // d mu_j / dq^i (nq x nq); a is the column compute() was given (signs frozen).

  /// out = t y (length nq - 1) for a direction y (length nq); zero where the reflection was
  /// skipped (mu = 0). nc = 1 only.
  template <class A, class P, class Y, class Out>
  void pullback_along(const A& a, const Jacobian& da, const P& p, const Y& y, Out& out) {
    if (!active_[0]) {
      out.setZero();
      return;
    }
    const auto w = w_.col(0);
    dn_.noalias() = da * y;                             // dx
    const double c = s_(0) * a.col(0).dot(dn_) / nx0_;  // dw~ = dx + c e_0
    const double wdw = w.dot(dn_) + c * w(0);           // w . dw~
    const double pw = p.dot(w);
    const double pdw = (p.dot(dn_) + c * p(0) - pw * wdw) / nw0_;  // p . dw
    out = (2.0 * pw * wdw / nw0_ - 2.0 * pdw) * tail_r(w) - (2.0 * pw / nw0_) * tail_r(dn_);
  }

  /// out = t^T v (length nq: out(i) = p^T (dX/dq^i) v) for v of length nq - 1; zero where the
  /// reflection was skipped. With g = w . (0, v) and b = p . w, out(i) = dw_i . z for
  /// z = -2 (g p + b (0, v)), and w . z = -4 b g. nc = 1 only.
  template <class A, class P, class V, class Out>
  void pullback_transpose(const A& a, const Jacobian& da, const P& p, const V& v, Out& out) {
    if (!active_[0]) {
      out.setZero();
      return;
    }
    const auto w = w_.col(0);
    const double g = tail_r(w).dot(v);
    const double b = p.dot(w);
    const double inv = 1.0 / nw0_;
    xk_ = (-2.0 * g * inv) * p + (4.0 * b * g * inv) * w;  // (z - w (w . z)) / |w~|
    tail_r(xk_) -= (2.0 * b * inv) * v;
    xk_ += (s_(0) * xk_(0) / nx0_) * a.col(0);
    out.noalias() = da.transpose() * xk_;
  }

 private:
  /// The last nq - 1 entries of a vector of length nq (fixed-size where NQ is).
  template <class V>
  auto tail_r(V&& v) const {
    if constexpr (NQ != Eigen::Dynamic) {
      return v.template tail<NQ - 1>();
    } else {
      return v.tail(n_ - 1);
    }
  }

  /// The reflection of nc = 1 from x = the column of A: w_0, |x|, |w~|.
  template <class X>
  void one_reflector(const X& x) {
    const double nx = x.norm();
    wt_ = x;
    wt_(0) += s_(0) * nx;
    const double nw = wt_.norm();
    active_[0] = nw != 0.0;
    nx0_ = nx;
    nw0_ = nw;
    if (nw != 0.0) w_.col(0) = wt_ * (1.0 / nw);
  }

  /// w_k = w~ / |w~| from R's column k (|x| = nx given); returns |w~| (0: reflection skipped,
  /// a zero column of a rank-deficient mu). Leaves w~ in wt_.
  double reflector(int k, double nx) {
    const int len = n_ - k;
    wt_.setZero();
    wt_.tail(len) = r_.col(k).tail(len);
    wt_(k) += s_(k) * nx;
    const double nw = wt_.norm();
    active_[static_cast<std::size_t>(k)] = nw != 0.0;
    if (k == 0) {
      nx0_ = nx;
      nw0_ = nw;
    }
    if (nw != 0.0) w_.col(k) = wt_ * (1.0 / nw);
    return nw;
  }
  /// R <- H_k R.
  void reflect_r(int k) {
    const auto w = w_.col(k);
    for (int c = 0; c < nc_; ++c) r_.col(c) -= (2.0 * w.dot(r_.col(c))) * w;
  }
  /// Householder step k: w_k from R, then R <- H_k R.
  void reflect(int k) {
    const int len = n_ - k;
    if (reflector(k, r_.col(k).tail(len).norm()) != 0.0) reflect_r(k);
  }
  /// b <- H_k b, column by column (w_k is zero above entry k).
  template <class B>
  void reflect_columns(int k, B& b) const {
    if (!active_[static_cast<std::size_t>(k)]) return;
    if (k == 0) {  // the whole column: fixed-size where NQ is
      const auto w = w_.col(0);
      for (Eigen::Index j = 0; j < b.cols(); ++j) {
        const double c = 2.0 * w.dot(b.col(j));
        b.col(j) -= c * w;
      }
      return;
    }
    const int len = n_ - k;
    const auto w = w_.col(k).tail(len);
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      const double c = 2.0 * w.dot(b.col(j).tail(len));
      b.col(j).tail(len) -= c * w;
    }
  }

  int n_, nc_;
  VecC s_;
  MatQC r_, w_;                        // R during the reflections; w_k as columns
  std::vector<unsigned char> active_;  // reflection k applied (w_k valid)
  double nx0_ = 0.0, nw0_ = 0.0;       // |x| and |w~| of reflection 0
  VecQ wt_, xk_, y_, dn_;
  Jacobian tq_, dw_;          // column i: p^T dQ/dq^i, and dw_k/dq^i
  std::vector<Jacobian> dr_;  // [c]: d(column c of R)/dq
};

}  // namespace nhsim

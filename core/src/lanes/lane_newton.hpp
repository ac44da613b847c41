// Internal: the simplified Newton iteration of W lanes, each on its own inverse Jacobian, with a
// convergence mask per lane: an attempt of SimplifiedNewton::solve (core/include/nhsim/newton.hpp),
// its attempts on a stored and on a fresh inverse, the forward-difference Jacobian, and the
// history of solutions the predictors extrapolate. The implicit methods' lane kernels
// (chaotic_quartic_discrete_gradient_kernel.hpp, chaotic_quartic_i_dla_kernel.hpp,
// chaotic_quartic_spark2_kernel.hpp, chaotic_quartic_dla_kernel.hpp,
// chaotic_quartic_gonzalez_f_kernel.hpp, chaotic_quartic_avf_f_kernel.hpp) run their steps
// through it.
//
// Included by the kernels' translation units beside chaotic_quartic_kernels.hpp, under its
// rules: internal linkage, -ffp-contract=off, each lane the scalar operations in the scalar order.
// Only what the scalar iteration does with finite values is done here: a lane whose predictor or
// increment is not finite, or that would leave the attempt (for a fresh Jacobian, the damped
// Newton fallback, a failure), is handed back.
#pragma once

#include <limits>
#include <type_traits>

#include "chaotic_quartic_kernels.hpp"
#include "kernels.hpp"
#include "nhsim/eigen_order_inverse.hpp"

namespace {

/// Lane mask from bits (bit l = lane l) and back.
template <int W>
inline void mask_of(unsigned bits, typename Lanes<W>::M& m) {
  for (int l = 0; l < W; ++l) m[l] = ((bits >> l) & 1U) != 0 ? -1 : 0;
}
template <int W>
inline unsigned bits_of(const typename Lanes<W>::M& m) {
  unsigned bits = 0;
  for (int l = 0; l < W; ++l) bits |= m[l] != 0 ? 1U << l : 0U;
  return bits;
}

/// How the iteration ended in each lane.
template <int W>
struct NewtonLaneMasks {
  typename Lanes<W>::M ok;           ///< converged: x is the solution
  typename Lanes<W>::M refresh;      ///< of ok: the scalar solve would drop its factorisation
  typename Lanes<W>::M handed_back;  ///< left this attempt: for the scalar method
};

/// The masks as the lane steppers take a step's outcome (kernels.hpp), one bit per lane.
template <int W>
inline void report(const NewtonLaneMasks<W>& m, nhsim::lanes::NewtonStepOutcome& out) {
  out.ok = bits_of<W>(m.ok);
  out.refresh = bits_of<W>(m.refresh);
  out.handed_back = bits_of<W>(m.handed_back);
}

/// The inverse kept as it is between refreshes (JacobianUpdate::kNone).
struct KeptInverse {
  KeptInverse() = default;
  /// As BroydenLanes is made (newton_solve()); the inverse is not touched.
  explicit KeptInverse(double* /*inverse*/) {}
  template <class M, class D>
  void operator()(const M& /*active*/, const D& /*nd_prev*/, D* /*dx*/) const {}
};

/// Broyden's update of each lane's inverse between refreshes, as SimplifiedNewton's
/// broyden_update (JacobianUpdate::kBroyden, newton.hpp) does it to the scalar inverse: from the
/// previous correction dxp and the new one dx = J^-1 F(x), where the previous increment nd_prev
/// (0 at the first iteration) is above 1e-10 and the iteration contracts along dxp
/// (den = |dxp|^2 - dxp.dx > |dxp|^2 / 2),
///   J^-1 += (dx / den) (dxp^T J^-1),   dx *= |dxp|^2 / den,
/// in the lanes of `active` (every other lane's inverse is left as it is). The reductions (|dxp|^2,
/// dxp.dx and the inverse's transposed lazy product) are Eigen's packet trees (eigen_packet_sum),
/// checked against Eigen for N = 15 (gonzalez_f, avf_f); `inverse` is [N * N][W] with (i, j) at
/// row N i + j, as newton_solve() keeps it.
template <int W, int N>
class BroydenLanes {
  static_assert(N == 15, "Eigen's reduction order is checked for 15 unknowns only");

 public:
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;

  explicit BroydenLanes(double* inverse) : inverse_(inverse) {}

  void operator()(const M& active, const D& nd_prev, D* dx) {
    constexpr double kSecantFloor = 1e-10;
    const M secant = active & (nd_prev > kSecantFloor);
    if (bits_of<W>(secant) != 0) {
      D e[N], ss, dot;
      for (int i = 0; i < N; ++i) e[i] = dxp_[i] * dxp_[i];
      eigen_packet_sum<N>(e, ss);
      for (int i = 0; i < N; ++i) e[i] = dxp_[i] * dx[i];
      eigen_packet_sum<N>(e, dot);
      const D den = ss - dot;
      const M contracts = secant & (den > 0.5 * ss);
      if (bits_of<W>(contracts) != 0) update(contracts, den, ss, dx);
    }
    for (int i = 0; i < N; ++i) dxp_[i] = dx[i];
  }

 private:
  void update(const M& lanes, const D& den, const D& ss, D* dx) {
    D row[N];  // dxp^T J^-1: column j of J^-1 times dxp
    for (int j = 0; j < N; ++j) {
      D e[N];
      for (int i = 0; i < N; ++i) {
        load<W>(e[i], inverse_ + (N * i + j) * W);
        e[i] = e[i] * dxp_[i];
      }
      eigen_packet_sum<N>(e, row[j]);
    }
    for (int i = 0; i < N; ++i) {
      const D c = dx[i] / den;
      for (int j = 0; j < N; ++j) {
        D a;
        load<W>(a, inverse_ + (N * i + j) * W);
        store<W>(inverse_ + (N * i + j) * W, lanes ? a + c * row[j] : a);
      }
    }
    const D scale = ss / den;
    for (int i = 0; i < N; ++i) dx[i] = lanes ? dx[i] * scale : dx[i];
  }

  double* inverse_;
  D dxp_[N];  // the previous correction
};

/// Solves F(x) = 0 for the N unknowns x of the lanes in `lanes` (bits) from the predictor in x,
/// each lane on its own inverse Jacobian, as an attempt of SimplifiedNewton::solve does: the
/// componentwise weights 1 / max(1, |x0_i|), the tolerance `tol` on the weighted increment, at
/// most `max_iter` iterations, stagnation at the round-off floor accepted. A lane whose inverse is
/// `fresh` (formed at this predictor) also accepts an increment that stopped shrinking
/// (theta >= 1) below its `floor` (1e3 eps max(1, |x0|_inf, state scale)), iterates on while
/// 0.5 < theta < 1, and gives up at theta >= 1; a lane on a stale inverse gives up at
/// theta > 0.5. `residual(x, r)` writes F(x); `inverse_times(r, dx)` writes dx = J^-1 r as the
/// scalar lazy_product() does. A lane converges in `ok` (in `refresh` too where the scalar
/// iteration would refactorise at the next step: more than 7 iterations, or theta > 0.5 at the
/// last); every other lane of `lanes` is in `handed_back`, its x to be ignored. The x of lanes
/// not in `lanes` is left as it is. `update(active, nd_prev, dx)` runs where the scalar iteration
/// updates its inverse, after each product (KeptInverse, BroydenLanes). `unit` (N values, or
/// null for all 1) are the scalar iteration's round-off units
/// (SimplifiedNewton::set_roundoff_units): in the round-off test of a fresh inverse (below its
/// `floor`) the increment is max_j (|dx_j| w_j) unit_j.
template <int W, int N, class Residual, class InverseTimes, class Update>
[[gnu::always_inline]] inline NewtonLaneMasks<W> simplified_newton(
    typename Lanes<W>::D* x, unsigned lanes, const typename Lanes<W>::M& fresh,
    const typename Lanes<W>::D& floor, double tol, int max_iter, const Residual& residual,
    const InverseTimes& inverse_times, Update& update, const double* unit = nullptr) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  D w[N], r[N], dx[N];
  M active;
  mask_of<W>(lanes, active);
  M finite = active;
  for (int j = 0; j < N; ++j) {
    finite &= (x[j] - x[j]) == 0.0;
    const D a = x[j] < 0.0 ? -x[j] : x[j];
    w[j] = 1.0 / (a < 1.0 ? 1.0 : a);
  }
  const M all = M{} == 0, none = M{} != 0;
  NewtonLaneMasks<W> out{none, none, active & ~finite};
  active &= finite;
  constexpr double kAbsoluteFloor = 1e3 * std::numeric_limits<double>::epsilon();
  D prev = D{} + std::numeric_limits<double>::infinity();
  for (int it = 1; it <= max_iter && bits_of<W>(active) != 0; ++it) {
    residual(x, r);
    inverse_times(r, dx);
    update(active, it >= 2 ? prev : D{} + 0.0, dx);
    D nd = D{} + 0.0, nf = D{} + 0.0;
    M dx_finite = active;
    for (int j = 0; j < N; ++j) {
      x[j] = active ? x[j] - dx[j] : x[j];
      dx_finite &= (dx[j] - dx[j]) == 0.0;
      const D a = (dx[j] < 0.0 ? -dx[j] : dx[j]) * w[j];
      nd = nd < a ? a : nd;  // the maximum; finite values in any order
      if (unit != nullptr) {
        const D f = a * unit[j];
        nf = nf < f ? f : nf;
      }
    }
    if (unit == nullptr) nf = nd;
    out.handed_back |= active & ~dx_finite;
    active &= dx_finite;
    const D theta = nd / prev;
    const M converged = active & (nd <= tol);
    out.refresh |= converged & ((it > 7 ? all : none) | (theta > 0.5));
    out.ok |= converged;
    active &= ~converged;
    const M slow = active & (it >= 2 ? all : none) & (theta > 0.5);
    const M stagnated = slow & (theta >= 0.9) & (nd <= kAbsoluteFloor);  // at the round-off floor
    const M at_floor = slow & ~stagnated & fresh & (theta >= 1.0) & (nf <= floor);
    // diverging, or slow on a stale inverse (refresh)
    const M give_up = slow & ~stagnated & ~at_floor & ((theta >= 1.0) | ~fresh);
    out.ok |= stagnated | at_floor;
    out.handed_back |= give_up;
    active &= ~(stagnated | at_floor | give_up);
    prev = nd;
  }
  out.handed_back |= active;  // max_iter iterations without convergence
  return out;
}

/// simplified_newton() on stale inverses only: the first attempt of SimplifiedNewton::solve with a
/// stored factorisation.
template <int W, int N, class Residual, class InverseTimes>
inline NewtonLaneMasks<W> reused_inverse_newton(typename Lanes<W>::D* x, unsigned lanes, double tol,
                                                int max_iter, const Residual& residual,
                                                const InverseTimes& inverse_times) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  KeptInverse kept;
  return simplified_newton<W, N>(x, lanes, M{} != 0, D{} + 0.0, tol, max_iter, residual,
                                 inverse_times, kept);
}

/// scale = max(scale, |v_j|) over the N values v, lane by lane: from scale = 1, over the predictor
/// (and the state where the step passes it), the scale of SimplifiedNewton::solve's round-off
/// floor.
template <int W, int N>
inline void max_abs(const typename Lanes<W>::D* v, typename Lanes<W>::D& scale) {
  using D = typename Lanes<W>::D;
  for (int j = 0; j < N; ++j) {
    const D a = v[j] < 0.0 ? -v[j] : v[j];
    scale = scale < a ? a : scale;
  }
}

/// The sum of e[Start] .. e[Start + Len - 1] in the order of Eigen's unrolled reduction without
/// packets (redux_novec_unroller): the first half's sum plus the second's, the halves split the
/// same way down to single terms. Eigen's order for a coefficient of a fixed-size lazy product
/// that its packets leave over (lazy_product.hpp).
template <int Start, int Len, class D>
[[gnu::always_inline]] inline void unrolled_sum(const D* e, D& sum) {
  if constexpr (Len == 1) {
    sum = e[Start];
  } else {
    constexpr int kHalf = Len / 2;
    D first, second;
    unrolled_sum<Start, kHalf>(e, first);
    unrolled_sum<Start + kHalf, Len - kHalf>(e, second);
    sum = first + second;
  }
}

/// dx = J^-1 r of W lanes as SimplifiedNewton<N>'s lazy_product(inv_, r_, dx_) (lazy_product.hpp):
/// the rows Eigen takes in packets each summed over j in order; the last row of an odd N, which it
/// takes apart, by unrolled_sum(). inv is [N * N][W], (i, j) at row N i + j.
template <int W, int N>
inline void inverse_times_in_order(const double* inv, const typename Lanes<W>::D* r,
                                   typename Lanes<W>::D* dx) {
  using D = typename Lanes<W>::D;
  constexpr int kEndPacketRows = N / 2 * 2;
  for (int i = 0; i < kEndPacketRows; ++i) {
    D a, acc;
    load<W>(acc, inv + (N * i) * W);
    acc = acc * r[0];
    for (int j = 1; j < N; ++j) {
      load<W>(a, inv + (N * i + j) * W);
      acc = acc + a * r[j];
    }
    dx[i] = acc;
  }
  if constexpr (kEndPacketRows < N) {
    D e[N];
    for (int j = 0; j < N; ++j) {
      load<W>(e[j], inv + (N * (N - 1) + j) * W);
      e[j] = e[j] * r[j];
    }
    unrolled_sum<0, N>(e, dx[N - 1]);
  }
}

/// The last three Newton solutions of W lanes, newest first, and how many of them are valid (0 to
/// 3), as the methods on the canonical state keep them for their predictor (SolutionHistory,
/// canonical_util.hpp): `rows` is [3 N][W], `valid` [W].
template <int W, int N>
struct LaneSolutionHistory {
  using D = typename Lanes<W>::D;
  D x1[N], x2[N], x3[N], count;

  /// x = 3 (x_n - x_{n-1}) + x_{n-2} in every lane (SolutionHistory::extrapolate).
  void extrapolate(D* x) const {
    for (int j = 0; j < N; ++j) x[j] = 3.0 * (x1[j] - x2[j]) + x3[j];
  }

  void load_from(const double* rows, const double* valid) {
    for (int j = 0; j < N; ++j) {
      load<W>(x1[j], rows + j * W);
      load<W>(x2[j], rows + (N + j) * W);
      load<W>(x3[j], rows + (2 * N + j) * W);
    }
    load<W>(count, valid);
  }
  /// The history after a step: where `ok`, x is the newest solution and the others shift.
  void store_to(double* rows, double* valid, const typename Lanes<W>::M& ok, const D* x) const {
    for (int j = 0; j < N; ++j) {
      store<W>(rows + (2 * N + j) * W, ok ? x2[j] : x3[j]);
      store<W>(rows + (N + j) * W, ok ? x1[j] : x2[j]);
      store<W>(rows + j * W, ok ? x[j] : x1[j]);
    }
    store<W>(valid, (ok & (count < 3.0)) ? count + 1.0 : count);
  }
};

/// q, p [7] and the solution history of the W lanes of a method on the canonical state (i_dla,
/// spark2, gonzalez_f, avf_f) from their block.
template <int W, int N>
inline void load_canonical(const nhsim::lanes::CanonicalNewtonLaneBlock& b, typename Lanes<W>::D* q,
                           typename Lanes<W>::D* p, LaneSolutionHistory<W, N>& hist) {
  for (int j = 0; j < 7; ++j) {
    load<W>(q[j], b.q + j * W);
    load<W>(p[j], b.p + j * W);
  }
  hist.load_from(b.solutions, b.history);
}

/// jac = dF/dx at x of W lanes by forward differences, as forward_difference_jacobian
/// (newton.hpp): column j is (F(x + d_j e_j) - F(x)) / d_j with d_j = 1e-7 max(1, |x_j|).
/// `residual(x, r)` writes F(x); jac is [N * N], column-major (entry (i, j) at N j + i).
template <int W, int N, class Residual>
inline void forward_difference_jacobian(const typename Lanes<W>::D* x, const Residual& residual,
                                        typename Lanes<W>::D* jac) {
  using D = typename Lanes<W>::D;
  D r0[N], r1[N], xt[N];
  residual(x, r0);
  for (int j = 0; j < N; ++j) {
    const D a = x[j] < 0.0 ? -x[j] : x[j];
    const D d = 1e-7 * (1.0 < a ? a : D{} + 1.0);  // std::max(1.0, |x_j|)
    for (int i = 0; i < N; ++i) xt[i] = x[i];
    xt[j] = x[j] + d;
    residual(xt, r1);
    for (int i = 0; i < N; ++i) jac[N * j + i] = (r1[i] - r0[i]) / d;
  }
}

/// SimplifiedNewton::solve's attempts for W lanes: solves F(x) = 0 for the N unknowns x of the
/// lanes in `lanes` (bits) from the predictor in x. A lane in `factorised` first iterates on its
/// stored inverse. A lane without one, and a lane whose stored inverse did not converge, then
/// iterates from the predictor again on a fresh inverse (the forward-difference Jacobian of
/// `jacobian_residual` at the predictor, inverted by inverse_in_eigen_order()) with the round-off
/// floor 1e3 eps `scale` of the step (`scale`: max(1, |x0|_inf, state scale), max_abs()), and
/// stores that inverse. `inverse` is [N * N][W], each lane's J^-1 with (i, j) at row N i + j,
/// applied as inverse_times_in_order<W, N>() does and, where kBroyden (the scalar method's
/// JacobianUpdate::kBroyden), updated by BroydenLanes in each attempt; residual as for
/// simplified_newton(). Returns the lanes that converged (x the solution), those of them whose
/// factorisation the scalar iteration would drop, and those whose fresh attempt failed too (for the
/// damped Newton fallback of the scalar method). `unit`: the round-off units of
/// simplified_newton() (null: all 1).
template <int W, int N, bool kBroyden, class Residual, class JacobianResidual>
inline NewtonLaneMasks<W> newton_solve(typename Lanes<W>::D* x, unsigned lanes, unsigned factorised,
                                       double* inverse, const typename Lanes<W>::D& scale,
                                       double tol, int max_iter, const Residual& residual,
                                       const JacobianResidual& jacobian_residual,
                                       const double* unit = nullptr) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  const auto inverse_times = [inverse](const D* r, D* dx) {
    inverse_times_in_order<W, N>(inverse, r, dx);
  };
  std::conditional_t<kBroyden, BroydenLanes<W, N>, KeptInverse> update(inverse);
  D x0[N];
  for (int j = 0; j < N; ++j) x0[j] = x[j];
  const M none = M{} != 0;
  NewtonLaneMasks<W> stale{none, none, none}, fresh{none, none, none};
  if ((lanes & factorised) != 0) {
    stale = simplified_newton<W, N>(x, lanes & factorised, none, D{} + 0.0, tol, max_iter, residual,
                                    inverse_times, update, unit);
  }
  const unsigned fresh_lanes = (lanes & ~factorised) | bits_of<W>(stale.handed_back);
  if (fresh_lanes != 0) {
    M is_fresh;
    mask_of<W>(fresh_lanes, is_fresh);
    for (int j = 0; j < N; ++j) x[j] = is_fresh ? x0[j] : x[j];
    D jac[N * N], inv[N * N];
    forward_difference_jacobian<W, N>(x0, jacobian_residual, jac);
    nhsim::inverse_in_eigen_order<Lanes<W>, N>(jac, inv);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) {  // column-major to the lanes' rows N i + j
        D stored;
        load<W>(stored, inverse + (N * i + j) * W);
        store<W>(inverse + (N * i + j) * W, is_fresh ? inv[N * j + i] : stored);
      }
    }
    const D floor = (1e3 * std::numeric_limits<double>::epsilon()) * scale;
    fresh = simplified_newton<W, N>(x, fresh_lanes, is_fresh, floor, tol, max_iter, residual,
                                    inverse_times, update, unit);
  }
  return {stale.ok | fresh.ok, stale.refresh | fresh.refresh, fresh.handed_back};
}

/// newton_solve() of a method whose Jacobian is that of its residual (i_dla, spark2, dla).
template <int W, int N, class Residual>
inline NewtonLaneMasks<W> newton_solve(typename Lanes<W>::D* x, unsigned lanes, unsigned factorised,
                                       double* inverse, const typename Lanes<W>::D& scale,
                                       double tol, int max_iter, const Residual& residual,
                                       const double* unit = nullptr) {
  return newton_solve<W, N, false>(x, lanes, factorised, inverse, scale, tol, max_iter, residual,
                                   residual, unit);
}

}  // namespace

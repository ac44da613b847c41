// Internal: the lane kernels of the chaotic quartic system (n = 3, [Celledoni2019] §4.1): rk2,
// nh_rattle and nh_rattle_projected advancing W trajectories at once, one SIMD lane each, structure
// of arrays, and the system's functions the implicit methods' kernels share. (si_dla and rk4 run
// the integrators' own code over lanes: method_lanes.hpp.)
//
// Included by one translation unit per instruction set (kernels_<isa>.cpp), each compiled with
// its own -m flags and -ffp-contract=off. Everything here has internal linkage (an anonymous
// namespace, no library templates), so that no function compiled for one instruction set is
// shared with another by the linker.
//
// Same bits as the scalar path: each lane performs the scalar stepper's floating-point
// operations (core/include/nhsim/integrators/rk2.hpp, nh_rattle.hpp, nh_rattle_projected.hpp
// and systems/chaotic_quartic.hpp) in the same order, as the same IEEE operations (+, -, *, /,
// each correctly rounded; no fused multiply-add: -ffp-contract=off), so every lane's state is the
// scalar state bit for bit whatever W and the instruction set. Where Eigen evaluates an expression
// in an order of its own, the comment says which.
#pragma once

#include <cstdint>
#include <limits>

namespace {

/// W doubles, one per lane (GCC/Clang vector extension: elementwise IEEE arithmetic, split into
/// the instruction set's registers).
template <int W>
struct Lanes {
  typedef double D __attribute__((vector_size(8 * W)));
  /// A comparison's result: per lane all ones (true) or zero.
  typedef std::int64_t M __attribute__((vector_size(8 * W)));
  static_assert(sizeof(D) == 8 * W, "the vector extension must apply");
};

// By reference, not by value: a vector wider than the baseline registers passed by value would
// change the ABI (-Wpsabi); everything here is inlined anyway.
template <int W>
inline void load(typename Lanes<W>::D& v, const double* p) {
  __builtin_memcpy(&v, p, sizeof v);
}

template <int W>
inline void store(double* p, const typename Lanes<W>::D& v) {
  __builtin_memcpy(p, &v, sizeof v);
}

/// grad V(q) of W lanes, q and g [7] (ChaoticQuartic::grad_potential).
template <int W>
inline void grad_potential(const typename Lanes<W>::D* q, typename Lanes<W>::D* g) {
  using D = typename Lanes<W>::D;
  g[0] = q[0];
  for (int i = 0; i < 3; ++i) {
    const D wi = q[1 + i], zi = q[4 + i];
    g[1 + i] = wi + wi * zi * zi;
    g[4 + i] = zi + wi * wi * zi;
  }
  g[4] += q[4] * q[5] * q[5];
  g[5] += q[4] * q[4] * q[5];
}

/// V(q) of W lanes, q [7] (ChaoticQuartic::potential; its squaredNorm is Eigen's: three packets
/// p0 + (p1 + p2), halves added, then q_6^2).
template <int W>
inline void potential(const typename Lanes<W>::D* q, typename Lanes<W>::D& v) {
  using D = typename Lanes<W>::D;
  D s =
      ((q[0] * q[0] + (q[2] * q[2] + q[4] * q[4])) + (q[1] * q[1] + (q[3] * q[3] + q[5] * q[5]))) +
      q[6] * q[6];
  s += q[4] * q[4] * q[5] * q[5];
  for (int i = 0; i < 3; ++i) s += q[1 + i] * q[1 + i] * q[4 + i] * q[4 + i];
  v = 0.5 * s;
}

/// f(q) = -grad V(q) of W lanes, q and f [7] (applied_force without controls).
template <int W>
inline void applied_force(const typename Lanes<W>::D* q, typename Lanes<W>::D* f) {
  grad_potential<W>(q, f);
  for (int j = 0; j < 7; ++j) f[j] = -f[j];
}

/// mu(q) = (1, 0, 0, 0, w_1, w_2, w_3) of W lanes, structural zeros included, q and mu [7]
/// (ChaoticQuartic::constraint).
template <int W>
inline void constraint(const typename Lanes<W>::D* q, typename Lanes<W>::D* mu) {
  using D = typename Lanes<W>::D;
  mu[0] = D{} + 1.0;
  for (int j = 1; j < 4; ++j) mu[j] = D{} + 0.0;
  for (int i = 0; i < 3; ++i) mu[4 + i] = q[1 + i];
}

/// k steps of W lanes of a method on the canonical state: q and p are [7][W] (component-major),
/// held in registers while `step(q, p)` advances them one step each time.
template <int W, class Step>
inline void canonical_steps(double* q_io, double* p_io, std::int64_t k, const Step& step) {
  using D = typename Lanes<W>::D;
  D q[7], p[7];
  for (int j = 0; j < 7; ++j) {
    load<W>(q[j], q_io + j * W);
    load<W>(p[j], p_io + j * W);
  }
  for (std::int64_t s = 0; s < k; ++s) step(q, p);
  for (int j = 0; j < 7; ++j) {
    store<W>(q_io + j * W, q[j]);
    store<W>(p_io + j * W, p[j]);
  }
}

/// The sums (s0, s1) of the two halves of packets Start .. Start + Len - 1 of e (packet k is
/// [e_2k, e_2k+1]) in the order of Eigen's unrolled vectorised reduction (redux_vec_unroller): the
/// first half of the packets plus the second, split the same way down to single packets.
template <int Start, int Len, class D>
[[gnu::always_inline]] inline void packet_tree_sum(const D* e, D& s0, D& s1) {
  if constexpr (Len == 1) {
    s0 = e[2 * Start];
    s1 = e[2 * Start + 1];
  } else {
    constexpr int kHalf = Len / 2;
    D a0, a1, b0, b1;
    packet_tree_sum<Start, kHalf>(e, a0, a1);
    packet_tree_sum<Start + kHalf, Len - kHalf>(e, b0, b1);
    s0 = a0 + b0;
    s1 = a1 + b1;
  }
}

/// The sum of e[0] .. e[N - 1] (N >= 2) as Eigen 3.4 reduces a fixed-size vector expression of N
/// doubles with SSE2 packets of two (sum(), dot(), squaredNorm(), a coefficient of a lazy product
/// along a contiguous inner dimension): the packets' tree (packet_tree_sum), the packet's two
/// halves added, then the last term if N is odd.
template <int N, class D>
[[gnu::always_inline]] inline void eigen_packet_sum(const D* e, D& sum) {
  static_assert(N >= 2, "Eigen reduces a single term without packets");
  D s0, s1;
  packet_tree_sum<0, N / 2>(e, s0, s1);
  sum = s0 + s1;
  if constexpr (N % 2 != 0) sum = sum + e[N - 1];
}

/// Eigen's sum of the 7 products a_j b_j of a 1 x 7 by 7 x 1 product (an inner product, fixed
/// size 7): three packets [a_2i b_2i, a_2i+1 b_2i+1] summed as p0 + (p1 + p2), the packet's two
/// halves added, then the 7th product (eigen_packet_sum). Structural zeros of a or b are
/// multiplied and added too.
template <int W>
inline void dot7(const typename Lanes<W>::D* a, const typename Lanes<W>::D* b,
                 typename Lanes<W>::D& sum) {
  using D = typename Lanes<W>::D;
  D e[7];
  for (int j = 0; j < 7; ++j) e[j] = a[j] * b[j];
  eigen_packet_sum<7>(e, sum);
}

/// c of the Gonzalez discrete gradient, [Celledoni2019] eq. (12), of W lanes (gonzalez_coefficient,
/// gonzalez_quotient.hpp): (h1 - h0 - gd) / dd, or 0 where the step is tiny and the numerator at
/// the round-off of its terms.
template <int W>
inline void gonzalez_coefficient(const typename Lanes<W>::D& h1, const typename Lanes<W>::D& h0,
                                 const typename Lanes<W>::D& gd, const typename Lanes<W>::D& dd,
                                 const typename Lanes<W>::D& zz, const typename Lanes<W>::D& gz,
                                 typename Lanes<W>::D& c) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  const D num = h1 - h0 - gd;
  const D abs_h1 = h1 < 0.0 ? -h1 : h1, abs_h0 = h0 < 0.0 ? -h0 : h0, abs_gd = gd < 0.0 ? -gd : gd,
          abs_gz = gz < 0.0 ? -gz : gz, abs_num = num < 0.0 ? -num : num;
  const D noise =
      8.0 * std::numeric_limits<double>::epsilon() * (abs_h1 + abs_h0 + abs_gd + abs_gz);
  const D one = D{} + 1.0;
  const D tiny_bound = 1e-12 * (one < zz ? zz : one);  // std::max(1.0, zz)
  const M skip = (dd <= 0.0) | ((dd <= tiny_bound) & (abs_num <= noise));
  c = skip ? D{} + 0.0 : num / dd;
}

/// The explicit midpoint predictor of the methods on the canonical state (q, p of W lanes, [7]
/// each): (dq, dp) = field(qm, pm) at qm = q + (h / 2) dq0, pm = p + (h / 2) dp0,
/// (dq0, dp0) = field(q, p), as GonzalezFMethod::step and AvfFMethod::step take it before three
/// solutions are known. `field(q, p, dq, dp)` writes the method's vector field.
template <int W, class Field>
inline void explicit_midpoint_field(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                                    double h, const Field& field, typename Lanes<W>::D* dq,
                                    typename Lanes<W>::D* dp) {
  using D = typename Lanes<W>::D;
  D qm[7], pm[7];
  field(q, p, dq, dp);
  for (int j = 0; j < 7; ++j) {
    qm[j] = q[j] + (0.5 * h) * dq[j];
    pm[j] = p[j] + (0.5 * h) * dp[j];
  }
  field(qm, pm, dq, dp);
}

/// rk2's vector field of W lanes, the canonical index-1 equations (CanonicalIndex1Field with
/// M = I, f = -grad V, mu(q) = (1, 0, 0, 0, w_1, w_2, w_3) and d mu / dt from constraint_dot):
/// dq = p, lambda = -(mu_dot dq + mu f) / (mu mu^T), dp = f + mu^T lambda.
template <int W>
inline void rk2_field(const typename Lanes<W>::D* q, const typename Lanes<W>::D* p,
                      typename Lanes<W>::D* dq, typename Lanes<W>::D* dp) {
  using D = typename Lanes<W>::D;
  const D zero = D{} + 0.0;
  for (int j = 0; j < 7; ++j) dq[j] = p[j];
  D f[7], mu[7];
  applied_force<W>(q, f);
  constraint<W>(q, mu);
  const D mu_dot[7] = {zero, zero, zero, zero, dq[1], dq[2], dq[3]};
  // gram = mu M^-1 mu^T; s = mu_dot dq + (M^-1 mu^T)^T f; lambda = -(gram's 1 x 1 LU solve)
  D gram, s_dot, s_f;
  dot7<W>(mu, mu, gram);
  dot7<W>(mu_dot, dq, s_dot);
  dot7<W>(mu, f, s_f);
  const D lam = -((s_dot + s_f) / gram);
  for (int j = 0; j < 7; ++j) dp[j] = f[j] + mu[j] * lam;
}

/// rk2 (the explicit midpoint rule) on the chaotic quartic system, k steps of size h of W lanes:
/// q and p are [7][W] (Rk2Method<ChaoticQuartic<3>>::step).
template <int W>
void rk2_steps(double* q_io, double* p_io, std::int64_t k, double h) {
  using D = typename Lanes<W>::D;
  const double half_h = 0.5 * h;
  canonical_steps<W>(q_io, p_io, k, [&](D* q, D* p) {
    D dq[7], dp[7], qm[7], pm[7];
    rk2_field<W>(q, p, dq, dp);
    for (int j = 0; j < 7; ++j) {
      qm[j] = q[j] + half_h * dq[j];
      pm[j] = p[j] + half_h * dp[j];
    }
    rk2_field<W>(qm, pm, dq, dp);
    for (int j = 0; j < 7; ++j) {
      q[j] = q[j] + h * dq[j];
      p[j] = p[j] + h * dp[j];
    }
  });
}

/// nh_rattle ([Kobilarov2010] eq. (10)) on the chaotic quartic system, k steps of size h of W
/// lanes: q and p are [7][W], lambda [W] the multiplier lambda_k of the last step
/// (NhRattleMethod<ChaoticQuartic<3>>::step with M = I, f = -grad V and
/// mu(q) = (1, 0, 0, 0, w_1, w_2, w_3)).
template <int W>
void nh_rattle_steps(double* q_io, double* p_io, double* lambda_io, std::int64_t k, double h) {
  using D = typename Lanes<W>::D;
  const double half_h = 0.5 * h;
  D lam;
  load<W>(lam, lambda_io);
  canonical_steps<W>(q_io, p_io, k, [&](D* q, D* p) {
    D f[7], mu[7], ph[7];
    applied_force<W>(q, f);
    constraint<W>(q, mu);
    for (int j = 0; j < 7; ++j) ph[j] = p[j] + half_h * (f[j] - mu[j] * lam);  // (10a)
    for (int j = 0; j < 7; ++j) q[j] = q[j] + h * ph[j];                       // (10b)
    applied_force<W>(q, f);
    for (int j = 0; j < 7; ++j) ph[j] = ph[j] + half_h * f[j];
    // (10e): (h/2) mu M^-1 mu^T lambda = mu M^-1 (p_k+1/2 + h/2 f), the 1 x 1 LU solve, then
    // divided by h/2; (h/2) mu^T lambda formed as ((h/2) mu^T) lambda, as Eigen does (10d).
    constraint<W>(q, mu);
    D gram, s;
    dot7<W>(mu, mu, gram);
    dot7<W>(mu, ph, s);
    lam = (s / gram) / half_h;
    for (int j = 0; j < 7; ++j) p[j] = ph[j] - (half_h * mu[j]) * lam;
  });
  store<W>(lambda_io, lam);
}

/// Q(q)^T y of W lanes (project_q_transpose, nh_common.hpp, with M = I and mu(q) = (1, 0, 0, 0,
/// w_1, w_2, w_3)): mu^T (mu mu^T)^-1 mu y, the 1 x 1 LU solve a division.
template <int W>
inline void project_q_transpose(const typename Lanes<W>::D* q, const typename Lanes<W>::D* y,
                                typename Lanes<W>::D* out) {
  using D = typename Lanes<W>::D;
  D mu[7], gram, s;
  constraint<W>(q, mu);
  dot7<W>(mu, mu, gram);
  dot7<W>(mu, y, s);
  const D lam = s / gram;
  for (int j = 0; j < 7; ++j) out[j] = mu[j] * lam;
}

/// nh_rattle_projected ([Kobilarov2010] eq. (14)-(16)) on the chaotic quartic system, k steps of
/// size h of W lanes: q and p_half (p_k-1/2, or p_0 before a lane's first step) are [7][W], stepped
/// [W] 0 for a lane that has not stepped since set_state (its first step is eq. (16)) and 1 after
/// (NhRattleProjectedMethod<ChaoticQuartic<3>>::step with M = I and f = -grad V).
template <int W>
void nh_rattle_projected_steps(double* q_io, double* p_half_io, double* stepped_io, std::int64_t k,
                               double h) {
  using D = typename Lanes<W>::D;
  using M = typename Lanes<W>::M;
  const double half_h = 0.5 * h;
  D stepped;
  load<W>(stepped, stepped_io);
  canonical_steps<W>(q_io, p_half_io, k, [&](D* q, D* pm) {
    const M first = stepped == 0.0;
    D f[7], y[7], qt[7];
    applied_force<W>(q, f);
    // (16): p_1/2 = p_0 + h/2 (f - Q^T f); (14a): (p + h f) - Q^T (2 p + h f)
    for (int j = 0; j < 7; ++j) y[j] = first ? f[j] : 2.0 * pm[j] + h * f[j];
    project_q_transpose<W>(q, y, qt);
    for (int j = 0; j < 7; ++j) {
      pm[j] = first ? pm[j] + half_h * (f[j] - qt[j]) : pm[j] + (h * f[j] - qt[j]);
    }
    for (int j = 0; j < 7; ++j) q[j] = q[j] + h * pm[j];  // (14b)
    stepped = D{} + 1.0;
  });
  store<W>(stepped_io, stepped);
}

/// k = kappa = w.eta / (1 + |w|^2) of W lanes, zeta = (x, w[3], z[3], xi[3], eta[3]): the value
/// ChaoticQuartic::reduced_gradient and apply_pi each compute from the same operands by the same
/// operations (the same bits, so computed once here).
template <int W>
inline void kappa(const typename Lanes<W>::D* z, typename Lanes<W>::D& k) {
  using D = typename Lanes<W>::D;
  const D zero = D{} + 0.0;
  D we = zero, ww = zero;
  for (int i = 0; i < 3; ++i) {
    we += z[1 + i] * z[10 + i];
    ww += z[1 + i] * z[1 + i];
  }
  k = we / (1.0 + ww);
}

/// grad H(zeta) of W lanes (ChaoticQuartic::reduced_gradient); k = kappa(zeta).
template <int W>
inline void reduced_gradient(const typename Lanes<W>::D* z, const typename Lanes<W>::D& k,
                             typename Lanes<W>::D* g) {
  using D = typename Lanes<W>::D;
  g[0] = z[0];
  for (int i = 0; i < 3; ++i) {
    const D wi = z[1 + i], zi = z[4 + i], eta = z[10 + i];
    g[1 + i] = wi + wi * zi * zi - k * eta + k * k * wi;
    g[4 + i] = zi + wi * wi * zi;
    g[7 + i] = z[7 + i];
    g[10 + i] = eta - k * wi;
  }
  g[4] += z[4] * z[5] * z[5];
  g[5] += z[4] * z[4] * z[5];
}

/// out = Pi(zeta) v of W lanes (ChaoticQuartic::apply_pi); k = kappa(zeta).
template <int W>
inline void apply_pi(const typename Lanes<W>::D* z, const typename Lanes<W>::D& k,
                     const typename Lanes<W>::D* v, typename Lanes<W>::D* out) {
  using D = typename Lanes<W>::D;
  D wve = D{} + 0.0;
  for (int i = 0; i < 3; ++i) wve += z[1 + i] * v[10 + i];
  out[0] = wve;
  const D vx = v[0];
  for (int i = 0; i < 3; ++i) {
    const D vxi = v[7 + i], veta = v[10 + i];
    out[1 + i] = vxi;
    out[4 + i] = -veta;
    out[7 + i] = -v[1 + i] - k * veta;
    out[10 + i] = -z[1 + i] * vx + v[4 + i] + k * vxi;
  }
}

/// f(zeta) = Pi(zeta) grad H(zeta) of W lanes (ChaoticQuartic::reduced_rhs).
template <int W>
inline void reduced_rhs(const typename Lanes<W>::D* z, typename Lanes<W>::D* out) {
  using D = typename Lanes<W>::D;
  D k, g[13];
  kappa<W>(z, k);
  reduced_gradient<W>(z, k, g);
  apply_pi<W>(z, k, g, out);
}

}  // namespace

// Continuous gearbox driven by an asymmetric pendulum, [Celledoni2019] §4.4, eq. (24), Fig. 4 (a
// special case of the continuous gearbox of Modin & Verdier, the paper's reference [27]).
//
// q = (q1, q2, q3) in R^3, M = I (so p = q'), one nonholonomic constraint
//   q1' + sin(q3) q2' = p1 + sin(q3) p2 = 0,     mu(q) = (1, sin q3, 0)        §4.4
// and the potential of eq. (24b), with its coefficients as parameters (defaults = the paper's):
//   V(q) = k/2 (q1^2 + q2^2) + a cos(q3) - b sin(2 q3),   k = 1, a = 1, b = 1/5.
// q1, q2 are the two gearbox shafts held by springs, q3 the asymmetric pendulum that drives the
// gear ratio sin(q3).
//
// Sign of V (a documented choice). Eq. (24a) prints H = 1/2 |p|^2 - V while (24b) calls V the
// potential. nhsim uses the physical Hamiltonian
//   H(q, p) = 1/2 |p|^2 + V(q):
// with -V the springs would be repulsive (q1'' = +q1 on the shafts' unconstrained directions),
// H would be unbounded below and generic trajectories would escape exponentially, so no
// integrator could be run to t = 50000 as in Fig. 4; with +V the energy shells are compact
// (V >= -(a + b)-ish is bounded below and grows quadratically in q1, q2; q3 is an angle) and
// the motion is the bounded, non-periodic one Fig. 4 shows. This is also the convention of
// Modin & Verdier's test problems (a Lagrangian L = T - V of a mechanical system).
//
// The paper derives no reduced form for this system: it is the example of §3.3 where only the
// canonical data (M, V, mu) are used (GONZALEZ-R, GONZALEZ-F, SI-DLA), so kHasReducedForm is
// false and the reduced-form methods (gonzalez, avf, itoh_abe, midpoint, rk4) are refused.
// M^-1 mu^T = (1, sin q3, 0) has no q3 component: a constraint force never moves q3, so
// mu(q1) in the SI-DLA step does not depend on lambda (kSiDlaConstraintAffine in si_dla.hpp).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "nhsim/dmath.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// The gearbox of [Celledoni2019] §4.4. Fixed sizes: q, p in R^3, one constraint. Parameters (all
/// dimensionless, as in the paper): k >= 0 spring stiffness of the shafts, a, b the pendulum's
/// cos and sin(2 .) coefficients; all finite, else the constructor throws std::invalid_argument.
class Gearbox : public CanonicalTypes<3, 1>, public IdentityMass {
 public:
  static constexpr bool kHasReducedForm = false;

  /// k [1] (>= 0), a [1], b [1]; all finite.
  Gearbox(double k, double a, double b) : k_(k), a_(a), b_(b) {
    if (!std::isfinite(k) || !std::isfinite(a) || !std::isfinite(b) || !(k >= 0.0)) {
      throw std::invalid_argument("gearbox: k, a, b must be finite and k >= 0");
    }
  }

  int nq() const { return NQ; }
  int nc() const { return NC; }
  double k() const { return k_; }
  double a() const { return a_; }
  double b() const { return b_; }

  /// V(q) = k/2 (q1^2 + q2^2) + a cos(q3) - b sin(2 q3), eq. (24b), with sin(2 q3) = 2 s c from
  /// one sincos (s = sin q3, c = cos q3).
  template <class VQ>
  double potential(const VQ& q) const {
    const auto [s, c] = dmath::sincos(q(2));
    return 0.5 * k_ * (q(0) * q(0) + q(1) * q(1)) + a_ * c - b_ * (2.0 * s * c);
  }

  /// grad V(q) = (k q1, k q2, -a sin(q3) - 2 b cos(2 q3)), length 3, with cos(2 q3) =
  /// (c - s) (c + s).
  template <class VQ, class Out>
  void grad_potential(const VQ& q, Out& g) const {
    const auto [s, c] = dmath::sincos(q(2));
    g(0) = k_ * q(0);
    g(1) = k_ * q(1);
    g(2) = -a_ * s - 2.0 * b_ * ((c - s) * (c + s));
  }

  /// H(q, p) = 1/2 |p|^2 + V(q) (the sign choice of the file comment).
  template <class VQ, class VP>
  double hamiltonian(const VQ& q, const VP& p) const {
    return 0.5 * (p(0) * p(0) + p(1) * p(1) + p(2) * p(2)) + potential(q);
  }

  /// mu(q) = (1, sin q3, 0), 1 x 3 (any scalar type: gonzalez_r takes dmu/dq by complex step).
  template <class VQ, class Out>
  void constraint(const VQ& q, Out& mu) const {
    mu(0, 0) = 1.0;
    mu(0, 1) = dmath::sin(q(2));
    mu(0, 2) = 0.0;
  }

  /// mu(q) M^-1 p = p1 + sin(q3) p2, the constraint of §4.4.
  template <class VQ, class VP>
  typename VP::Scalar constraint_value(const VQ& q, const VP& p) const {
    return p(0) + dmath::sin(q(2)) * p(1);
  }

  /// |p1 + sin(q3) p2|, the constraint error of Fig. 4 (right).
  template <class VQ, class VP>
  double constraint_residual(const VQ& q, const VP& p) const {
    return std::abs(constraint_value(q, p));
  }

 private:
  double k_, a_, b_;
};

}  // namespace nhsim

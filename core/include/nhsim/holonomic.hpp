// Holonomic constraints g(q) = 0 in redundant coordinates (directors): the system contract and
// the two residuals every such system reports ([Kinon2023] §2.3, §5; [Gebhardt2020] §3.5).
//
// A system with holonomic constraints declares
//   static constexpr int NG;                                   // number (or Eigen::Dynamic: ng())
//   void holonomic_constraint(const VecQ& q, VecG& g) const;   // g(q), length NG
//   void holonomic_jacobian(const VecQ& q, MatGQ& G) const;    // G(q) = Dg(q), NG x NQ
// and its constraint one-forms mu(q) (constraint()) are the rows [G(q); nonholonomic rows], so
// the velocity-level constraint G(q) M^-1 p = 0 is part of mu M^-1 p = 0 and the canonical
// methods that keep mu M^-1 p = 0 keep it too (but not g(q) = 0 itself).
#pragma once

#include <Eigen/Dense>

namespace nhsim {

/// True when S declares holonomic constraints: NG > 0 with g and G = Dg, or NG = Eigen::Dynamic
/// with their number ng() at run time (a user-defined system; possibly 0) and the types VecG,
/// MatGQ that hold them.
template <class S>
concept HasHolonomicConstraints = requires {
  S::NG;
}
&&(S::NG > 0 || S::NG == Eigen::Dynamic) &&
    requires(const S& s, const typename S::VecQ& q, typename S::VecG& g, typename S::MatGQ& G) {
  s.holonomic_constraint(q, g);
  s.holonomic_jacobian(q, G);
};

/// The number of holonomic constraints of sys: S::NG, or sys.ng() for a dynamic number.
template <HasHolonomicConstraints S>
int holonomic_count(const S& sys) {
  if constexpr (S::NG == Eigen::Dynamic) {
    return sys.ng();
  } else {
    (void)sys;
    return S::NG;
  }
}

/// max_k |g_k(q)| (position level; 0 when ng = 0). Units: those of g (m or dimensionless for
/// directors).
template <HasHolonomicConstraints S>
double position_constraint_residual(const S& sys, const typename S::VecQ& q) {
  const int ng = holonomic_count(sys);
  if (ng == 0) return 0.0;
  typename S::VecG g;  // (not g(ng): for a fixed size 1 that would be the value)
  g.resize(ng);
  sys.holonomic_constraint(q, g);
  return g.cwiseAbs().maxCoeff();
}

/// max_k |(G(q) M^-1 p)_k| (velocity level; units of g per time).
template <HasHolonomicConstraints S>
double velocity_constraint_residual(const S& sys, const typename S::VecQ& q,
                                    const typename S::VecQ& p) {
  const int ng = holonomic_count(sys);
  if (ng == 0) return 0.0;
  typename S::VecQ v;
  v.resize(sys.nq());
  sys.inv_mass_times(q, p, v);
  typename S::MatGQ G;
  G.resize(ng, sys.nq());
  sys.holonomic_jacobian(q, G);
  return (G * v).cwiseAbs().maxCoeff();
}

}  // namespace nhsim

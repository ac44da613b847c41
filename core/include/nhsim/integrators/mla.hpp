// `mla`: the modified Lagrange-d'Alembert integrator of [AnahorySimoes2022] §5.4, eq. (41)-(42):
//   i_D*( D2 L_d(q_{k-1}, q_k) + D1 L_d(q_k, q_{k+1}) + F_d^+(q_{k-1}, q_k) + F_d^-(q_k,
//   q_{k+1}) ) = 0,   (q_k, q_{k+1}) in M^d_h,
// i.e. momentum matching of the forced discrete Legendre transforms F^{f+/-} L_d projected onto
// D*. The discretisation (L_d, F_d^+/-, M^d_h) is specific to each system and is the one of the
// paper's examples: a system declares it with
//   static constexpr bool kHasMlaDiscretisation = true;
//   void mla_legendre_minus(q0, q1, h, out) const;     // F^{f-} L_d(q0, q1), length nq
//   void mla_legendre_plus(q0, q1, h, out) const;      // F^{f+} L_d(q0, q1), length nq
//   void mla_discrete_constraint(q0, q1, h, w) const;  // M^d_h = {w = 0}, length nc
// (nonholonomic_particle.hpp: Example 3; knife_edge.hpp: Examples 4-5).
// One-step canonical form, first step from (q0, p0) and the reported momentum
// p_k = P_{q_k} F^{f+} L_d(q_{k-1}, q_k): see discrete_momentum_matching.hpp. With the exact
// discrete Lagrangian, forces and constraint (Thm 5.5, 5.6) the scheme is the exact flow.
#pragma once

#include "nhsim/integrators/descriptors/mla.hpp"
#include "nhsim/integrators/discrete_momentum_matching.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

/// Forwards to the system's own MLA discretisation.
template <class S>
class MlaDiscretisation {
 public:
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  explicit MlaDiscretisation(const S& /*sys*/) {}
  void legendre_minus(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const {
    sys.mla_legendre_minus(q0, q1, h, out);
  }
  void legendre_plus(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecQ& out) const {
    sys.mla_legendre_plus(q0, q1, h, out);
  }
  void discrete_constraint(const S& sys, const VecQ& q0, const VecQ& q1, double h, VecC& w) const {
    sys.mla_discrete_constraint(q0, q1, h, w);
  }
};

}  // namespace nhsim

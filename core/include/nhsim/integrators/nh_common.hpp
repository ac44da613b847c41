// Helpers shared by the seed 002 canonical integrators (`nh_rattle`, `nh_rattle_projected`,
// `rk2`): the constraint Gram matrix and the M^-1-orthogonal projection of covectors onto the
// annihilator of the constraint distribution (seed 002 eq. (12a)), and the step clock of
// controlled systems. Constant mass matrix only (every caller's kApplies requires it).
#pragma once

#include <Eigen/Dense>
#include <cstdint>

#include "nhsim/system_concepts.hpp"
#include "nhsim/system_types.hpp"

namespace nhsim {

/// Fixed-size types of the constraint algebra of S.
template <class S>
struct NhTypes {
  using VecQ = typename S::VecQ;
  using VecC = typename S::VecC;
  using MatCQ = typename S::MatCQ;
  using MatQC = MatQCOf<S>;
  using MatC = MatCOf<S>;
};

/// minv_mut = M^-1 mu(q)^T (nq x nc) and gram = mu M^-1 mu^T (nc x nc) for mu = mu(q) given.
template <class S>
inline void constraint_gram(const S& sys, const typename S::VecQ& q, const typename S::MatCQ& mu,
                            typename NhTypes<S>::MatQC& minv_mut, typename NhTypes<S>::MatC& gram) {
  for (int a = 0; a < sys.nc(); ++a) {
    auto col = minv_mut.col(a);
    sys.inv_mass_times(q, mu.row(a).transpose(), col);
  }
  gram.noalias() = mu * minv_mut;
}

/// out = Q(q)^T y = mu^T (mu M^-1 mu^T)^-1 mu M^-1 y, the covector projector of eq. (12a)
/// (Q^T is the M^-1-orthogonal projector onto span(mu^T)); P(q)^T y = y - Q(q)^T y.
template <class S>
inline void project_q_transpose(const S& sys, const typename S::VecQ& q, const typename S::VecQ& y,
                                typename S::VecQ& out) {
  const int nq = sys.nq(), nc = sys.nc();
  typename S::MatCQ mu(nc, nq);
  typename NhTypes<S>::MatQC minv_mut(nq, nc);
  typename NhTypes<S>::MatC gram(nc, nc);
  sys.constraint(q, mu);
  constraint_gram(sys, q, mu, minv_mut, gram);
  const typename S::VecC s = minv_mut.transpose() * y;  // mu M^-1 y (M symmetric)
  out.noalias() = mu.transpose() * gram.partialPivLu().solve(s);
}

}  // namespace nhsim

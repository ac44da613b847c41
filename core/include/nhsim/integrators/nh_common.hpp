// Helpers shared by the [Kobilarov2010] canonical integrators (`nh_rattle`, `nh_rattle_projected`,
// `rk2`): the constraint Gram matrix and the M^-1-orthogonal projection of covectors onto the
// annihilator of the constraint distribution ([Kobilarov2010] eq. (12a)), and the step clock of
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

/// The constraint algebra at one q, sized once for the system: mu (nc x nq), M^-1 mu^T
/// (nq x nc), mu M^-1 mu^T (nc x nc), multipliers (nc) and mu^T times them (nq). Steps that keep
/// their matrices here take no heap memory at dynamic sizes (chaotic_quartic with n != 3).
template <class S>
struct ConstraintWorkspace {
  explicit ConstraintWorkspace(const S& sys)
      : mu(sys.nc(), sys.nq()),
        minv_mut(sys.nq(), sys.nc()),
        gram(sys.nc(), sys.nc()),
        s(sys.nc()),
        lam(sys.nc()),
        mut_lam(sys.nq()) {}
  typename S::MatCQ mu;
  typename NhTypes<S>::MatQC minv_mut;
  typename NhTypes<S>::MatC gram;
  typename S::VecC s, lam;
  typename S::VecQ mut_lam;
};

/// out = Q(q)^T y = mu^T (mu M^-1 mu^T)^-1 mu M^-1 y, the covector projector of eq. (12a)
/// (Q^T is the M^-1-orthogonal projector onto span(mu^T)); P(q)^T y = y - Q(q)^T y.
template <class S>
inline void project_q_transpose(const S& sys, const typename S::VecQ& q, const typename S::VecQ& y,
                                ConstraintWorkspace<S>& w, typename S::VecQ& out) {
  sys.constraint(q, w.mu);
  constraint_gram(sys, q, w.mu, w.minv_mut, w.gram);
  w.s.noalias() = w.minv_mut.transpose() * y;  // mu M^-1 y (M symmetric)
  w.lam = w.gram.partialPivLu().solve(w.s);
  out.noalias() = w.mu.transpose() * w.lam;
}

}  // namespace nhsim

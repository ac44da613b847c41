// Conversions between canonical (q, p) and the reduced state zeta = (q, rho) on D*, shared by
// every integrator that works on the reduced form ([Celledoni2019] eq. (16a-b)).
#pragma once

#include "nhsim/eigen_util.hpp"

namespace nhsim {

/// zeta = (q, rho) with rho = X(q)^T p (eq. 16b). q, p: length nq; zeta: length nz.
template <class S>
void zeta_from_canonical(const S& sys, const typename S::VecQ& q, const typename S::VecQ& p,
                         typename S::VecZ& zeta) {
  head_n<S::NQ>(zeta, sys.nq()) = q;
  auto rho = tail_n<S::NR>(zeta, sys.nr());
  sys.to_reduced(q, p, rho);
}

/// (q, p) from zeta = (q, rho) with p = M X g^-1 rho (eq. 16a); p satisfies the constraints.
template <class S>
void canonical_from_zeta(const S& sys, const typename S::VecZ& zeta, typename S::VecQ& q,
                         typename S::VecQ& p) {
  q = head_n<S::NQ>(zeta, sys.nq());
  sys.from_reduced(q, tail_n<S::NR>(zeta, sys.nr()), p);
}

}  // namespace nhsim

// Derivatives of a system's constraint one-forms mu(q) by the complex step: for a system whose
// mu evaluates at a complex q (ComplexStepConstraint), Im mu(q + i e v) / e = (dmu/dq) v + O(e^2)
// with no subtraction, so e = 1e-20 gives the derivative to round-off (Squire & Trapp 1998).
#pragma once

#include <Eigen/Dense>
#include <complex>

#include "nhsim/system_concepts.hpp"

namespace nhsim {

inline constexpr double kComplexStep = 1e-20;

/// mudot = d/dt mu(q(t)) along q' = v, i.e. sum_i dmu/dq^i v^i (nc x nq), for the index-1
/// canonical equations ([Kobilarov2010] §3). qc (nq) and muc (nc x nq) are the caller's workspace,
/// sized once, so that a step allocates nothing.
template <class S, class VQ, class Out>
requires ComplexStepConstraint<S>
void constraint_dot_by_complex_step(const S& sys, const VQ& q, const VQ& v, Eigen::VectorXcd& qc,
                                    Eigen::MatrixXcd& muc, Out& mudot) {
  qc = q.template cast<std::complex<double>>() +
       std::complex<double>(0.0, kComplexStep) * v.template cast<std::complex<double>>();
  sys.constraint(qc, muc);
  mudot = muc.imag() / kComplexStep;
}

}  // namespace nhsim

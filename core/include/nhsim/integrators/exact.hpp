// `exact`: the explicit solution of the equations of motion, for systems that have one (seed
// 001 §2.1.2, rolling disk: "immediately explicitly integrated"). A system declares it with
//   static constexpr bool kHasExactFlow = true;
//   template <class Out> void exact_flow(const VecZ& zeta, double t, Out& out) const;
// (out = the reduced state at time t of the trajectory through zeta, out may alias zeta).
// Each step applies the flow over h, so the result is exact up to round-off for any h. Used as
// the reference solution in convergence studies.
#pragma once

#include <cstdint>

#include "nhsim/integrators/descriptors/exact.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class ExactMethod {
 public:
  using VecQ = typename S::VecQ;
  using VecZ = typename S::VecZ;
  static constexpr int NQ = S::NQ;
  static constexpr int NR = S::NR;

  ExactMethod(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys), h_(h), z_(sys.nz()), z1_(sys.nz()) {}

  void set_canonical(const VecQ& q, const VecQ& p) { zeta_from_canonical(sys_, q, p, z_); }
  void canonical(VecQ& q, VecQ& p) const { canonical_from_zeta(sys_, z_, q, p); }
  bool state_finite() const { return all_finite(z_); }
  std::int64_t newton_iterations() const { return 0; }
  const VecZ& zeta() const { return z_; }

  StepStatus step(double& /*residual*/) {
    sys_.exact_flow(z_, h_, z1_);
    z_ = z1_;
    return StepStatus::kOk;
  }

 private:
  const S& sys_;
  double h_;
  VecZ z_, z1_;
};

}  // namespace nhsim

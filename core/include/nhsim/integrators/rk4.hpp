// `rk4`: the classical explicit fourth-order Runge-Kutta method on the reduced ODE
// zeta' = Pi(zeta) grad H(zeta), [Celledoni2019] eq. (9). The non-geometric baseline: it keeps the
// constraints exactly (the state lives on D*) but not the energy.
#pragma once

#include <cstdint>

#include "nhsim/integrators/descriptors/rk4.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/system_concepts.hpp"

namespace nhsim {

template <class S>
class Rk4Method {
 public:
  using VecQ = typename S::VecQ;
  using VecZ = typename S::VecZ;
  static constexpr int NQ = S::NQ;
  static constexpr int NR = S::NR;

  Rk4Method(const S& sys, double h, NewtonSettings /*unused*/)
      : sys_(sys),
        h_(h),
        z_(sys.nz()),
        k1_(sys.nz()),
        k2_(sys.nz()),
        k3_(sys.nz()),
        k4_(sys.nz()),
        t_(sys.nz()),
        g_(sys.nz()) {}

  void set_canonical(const VecQ& q, const VecQ& p) { zeta_from_canonical(sys_, q, p, z_); }
  void canonical(VecQ& q, VecQ& p) const { canonical_from_zeta(sys_, z_, q, p); }
  bool state_finite() const { return all_finite(z_); }
  std::int64_t newton_iterations() const { return 0; }

  StepStatus step(double& /*residual*/) {
    if constexpr (S::NZ == Eigen::Dynamic) {
      step_impl(z_, k1_, k2_, k3_, k4_, t_, g_);
    } else {
      // Fixed size: work on locals the compiler can keep in registers (members written through
      // references might alias the state, forcing every value through memory).
      VecZ z = z_, k1, k2, k3, k4, t, g;
      step_impl(z, k1, k2, k3, k4, t, g);
      z_ = z;
    }
    return StepStatus::kOk;
  }

 private:
  EIGEN_STRONG_INLINE void step_impl(VecZ& z, VecZ& k1, VecZ& k2, VecZ& k3, VecZ& k4, VecZ& t,
                                     VecZ& g) const {
    sys_.reduced_rhs(z, g, k1);
    t = z + (0.5 * h_) * k1;
    sys_.reduced_rhs(t, g, k2);
    t = z + (0.5 * h_) * k2;
    sys_.reduced_rhs(t, g, k3);
    t = z + h_ * k3;
    sys_.reduced_rhs(t, g, k4);
    z += (h_ / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }

  const S& sys_;
  double h_;
  VecZ z_, k1_, k2_, k3_, k4_, t_, g_;
};

}  // namespace nhsim

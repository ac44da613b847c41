// Internal: what the lane steppers of the chaotic quartic system (n = 3) have in common. Each
// lane reports (finiteness, the canonical state, energy, residual) through the scalar steppers'
// own code: the lane is gathered into the scalar Eigen types, and the functions the scalar
// steppers call are called, in the library's (baseline) instruction set.
#pragma once

#include "lane_rows.hpp"
#include "nhsim/integrators/reduced_state.hpp"
#include "nhsim/lanes.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"

namespace nhsim::lanes {

/// W lanes of the chaotic quartic system; a method's lanes say how a lane's canonical state
/// (q, p) is read and whether its state is finite.
class ChaoticQuarticLaneStepper : public LaneStepper {
 public:
  using Sys = ChaoticQuartic<3>;
  using VecQ = Sys::VecQ;
  using VecZ = Sys::VecZ;

  ChaoticQuarticLaneStepper(const Sys& sys, int width) : sys_(sys), width_(width) {}

  int width() const override { return width_; }
  void get_state(int lane, Eigen::VectorXd& q, Eigen::VectorXd& p) const override {
    VecQ qq, pp;
    canonical(lane, qq, pp);
    q = qq;
    p = pp;
  }
  double energy(int lane) const override {
    VecQ q, p;
    canonical(lane, q, p);
    return sys_.hamiltonian(q, p);
  }
  void energy_and_residual(int lane, double& energy, double& residual) const override {
    VecQ q, p;
    canonical(lane, q, p);
    energy = sys_.hamiltonian(q, p);
    residual = sys_.constraint_residual(q, p);
  }

 protected:
  /// Lane `lane`'s canonical state, as the scalar method's canonical().
  virtual void canonical(int lane, VecQ& q, VecQ& p) const = 0;

  Sys sys_;
  int width_;
};

/// Lanes whose state is the canonical (q, p), [7][W] each (si_dla, rk2, nh_rattle, i_dla).
class CanonicalStateLanes : public ChaoticQuarticLaneStepper {
 public:
  CanonicalStateLanes(const Sys& sys, int width)
      : ChaoticQuarticLaneStepper(sys, width), q_(width), p_(width) {}

  void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) override {
    q_.put(lane, 0, VecQ(q));
    p_.put(lane, 0, VecQ(p));
  }
  bool finite(int lane) const override {
    VecQ q, p;
    canonical(lane, q, p);
    return all_finite(q) && all_finite(p);  // the methods' state_finite
  }

 protected:
  void canonical(int lane, VecQ& q, VecQ& p) const override {
    q_.take(lane, 0, q);
    p_.take(lane, 0, p);
  }
  /// Lane `lane`'s (q, p) from a scalar method `m` of this system (its canonical()).
  template <class Method>
  void take_canonical(int lane, const Method& m) {
    VecQ q, p;
    m.canonical(q, p);
    q_.put(lane, 0, q);
    p_.put(lane, 0, p);
  }

  LaneRows<7> q_, p_;
};

/// Lanes whose state is the reduced zeta = (q, rho) on D*, [13][W] (rk4, gonzalez, avf).
class ReducedStateLanes : public ChaoticQuarticLaneStepper {
 public:
  static constexpr int kNz = 13;

  ReducedStateLanes(const Sys& sys, int width)
      : ChaoticQuarticLaneStepper(sys, width), zeta_(width) {}

  bool finite(int lane) const override {
    VecZ z;
    zeta_.take(lane, 0, z);
    return all_finite(z);  // the methods' state_finite
  }

 protected:
  void canonical(int lane, VecQ& q, VecQ& p) const override {
    VecZ z;
    zeta_.take(lane, 0, z);
    canonical_from_zeta(sys_, z, q, p);
  }

  LaneRows<kNz> zeta_;
};

}  // namespace nhsim::lanes

// Lanes (docs/design.md "Lanes"): a lane stepper advances a batch of trajectories at once, one SIMD
// lane per trajectory, its state stored as structure of arrays. The instruction set is chosen at
// run time among those this build has kernels for and the CPU runs, so one portable binary uses
// what the CPU has; nothing needs -march=native.
//
// Same bits as the scalar path: every lane performs its scalar stepper's floating-point
// operations in the same order, each correctly rounded, without fused multiply-add (the library
// is compiled with -ffp-contract=off), so a trajectory's states, samples and statistics do not
// depend on whether it ran in a lane, on the lane width or on the instruction set. The ensemble
// runner uses lanes where a (system, integrator) pair has them: si_dla and rk4 on the systems of
// lanes::MethodLaneSystems (core/src/lanes/lane_block.hpp: the chaotic quartic with n = 2, 3
// and 5 and six more), from the integrators' own code over Lane<W, Isa> (nhsim/lane.hpp); on the
// chaotic quartic with n = 3, rk2, nh_rattle, nh_rattle_projected, the discrete gradient methods
// gonzalez, avf, midpoint and itoh_abe, i_dla, spark2, dla, gonzalez_f and avf_f, from
// hand-written kernels; everything else runs one trajectory at a time.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

#include "nhsim/lane_settings.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// W trajectories of one (system, integrator) pair stepped together. Lane l is a trajectory as
/// a Stepper is one: the same state, the same steps, the same bits. Lanes are independent: a
/// lane whose state stops being finite does not affect the others. Steps allocate nothing.
class LaneStepper {
 public:
  virtual ~LaneStepper() = default;
  /// Lanes W.
  virtual int width() const = 0;
  /// Sets lane `lane`'s state from canonical (q, p), as Stepper::set_state (length nq, p on the
  /// constraints).
  virtual void set_state(int lane, const Eigen::VectorXd& q, const Eigen::VectorXd& p) = 0;
  /// k steps of every lane. A lane whose step fails (an implicit method's Newton iteration)
  /// stays at its last good state, and is not stepped again until set_state().
  virtual void advance(std::int64_t k) = 0;
  /// What the last advance() did to lane `lane`, as Stepper::advance() reports it: steps_done
  /// steps succeeded; a failed step's status and last Newton increment; kNonFinite with
  /// steps_done = 0 where the state is no longer finite after the call.
  virtual AdvanceResult result(int lane) const = 0;
  /// Whether lane `lane`'s state is finite: Stepper::advance's check, by the same reduction.
  virtual bool finite(int lane) const = 0;
  /// Lane `lane`'s state in canonical coordinates; q and p pre-sized to nq.
  virtual void get_state(int lane, Eigen::VectorXd& q, Eigen::VectorXd& p) const = 0;
  /// H(q, p) of lane `lane`, as Stepper::energy.
  virtual double energy(int lane) const = 0;
  /// Energy and constraint residual of lane `lane`, as Stepper::energy_and_residual.
  virtual void energy_and_residual(int lane, double& energy, double& residual) const = 0;
};

/// One lane of a LaneStepper seen as the trajectory it is: what sampling reads of a Stepper.
class LaneView {
 public:
  LaneView(const LaneStepper& lanes, int lane) : lanes_(&lanes), lane_(lane) {}
  void get_state(Eigen::VectorXd& q, Eigen::VectorXd& p) const { lanes_->get_state(lane_, q, p); }
  double energy() const { return lanes_->energy(lane_); }
  void energy_and_residual(double& energy, double& residual) const {
    lanes_->energy_and_residual(lane_, energy, residual);
  }

 private:
  const LaneStepper* lanes_;
  int lane_;
};

}  // namespace nhsim

// Internal: the ensemble's observables (EnsembleSpec::observables): resolved from their names once
// per spec, then sampled from a stepper's state into one row of doubles.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "nhsim/model.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

/// kSystem: the system's own observable `index` of SystemModel::observable_names().
/// kInvariantError: "invariant_error[NAME]", that observable's change J(t) - J(0) along the
/// trajectory (for a momentum map or a user-defined invariant: how well the integrator keeps it).
/// kPositionResidual / kVelocityResidual: max |g(q)| and max |G(q) M^-1 p| of a system with
/// holonomic constraints (SystemModel::ng() > 0). kQ / kP: state component `index`.
enum class ObsKind {
  kEnergyError,
  kRelativeEnergyError,
  kConstraintResidual,
  kPositionResidual,
  kVelocityResidual,
  kQ,
  kP,
  kSystem,
  kInvariantError
};

struct ObsDef {
  std::string name;
  ObsKind kind;
  int index = 0;
};

/// The observables named in `names`, or the defaults when it is empty (energy_error,
/// relative_energy_error, constraint_residual, and for a holonomic system also
/// position_constraint_residual and velocity_constraint_residual). Throws
/// SpecError("observables[i]", ...) for an unknown name (listing the known ones), a state index
/// outside [0, nq), or a duplicate. `system_by_default`: the defaults include every system
/// observable too (the named invariants of a user-defined system).
std::vector<ObsDef> resolve_observables(const std::vector<std::string>& names, int nq,
                                        bool holonomic,
                                        const std::vector<std::string>& system_names,
                                        bool system_by_default = false);

/// True when some observable needs the canonical state (q, p), not only energy and residual.
bool observables_need_state(const std::vector<ObsDef>& observables);

/// Samples every observable of the stepper's current state into row[0 .. size): h0 is H at
/// t = 0; initial[0 .. size) holds the trajectory's values at t = 0 of the invariants whose
/// change is sampled (written at the first sample, `first`, read after); q, p (length nq) are
/// workspace, filled from the stepper when `need_state`. Source: a Stepper, or one lane of a
/// LaneStepper (LaneView): get_state() and energy_and_residual().
template <class Source>
void sample_observables(const std::vector<ObsDef>& observables, bool need_state,
                        const SystemModel& model, const Source& stepper, double h0, double* initial,
                        bool first, Eigen::VectorXd& q, Eigen::VectorXd& p, double* row) {
  if (need_state) stepper.get_state(q, p);
  double energy = 0.0, residual = 0.0;
  stepper.energy_and_residual(energy, residual);
  for (std::size_t j = 0; j < observables.size(); ++j) {
    const ObsDef& o = observables[j];
    switch (o.kind) {
      case ObsKind::kEnergyError:
        row[j] = energy - h0;
        break;
      case ObsKind::kRelativeEnergyError: {
        const double d = std::abs(energy - h0);
        row[j] = h0 != 0.0 ? d / std::abs(h0) : d;
        break;
      }
      case ObsKind::kConstraintResidual:
        row[j] = residual;
        break;
      case ObsKind::kPositionResidual:
        row[j] = model.position_constraint_residual(q);
        break;
      case ObsKind::kVelocityResidual:
        row[j] = model.velocity_constraint_residual(q, p);
        break;
      case ObsKind::kQ:
        row[j] = q(o.index);
        break;
      case ObsKind::kP:
        row[j] = p(o.index);
        break;
      case ObsKind::kSystem:
        row[j] = model.observable(o.index, q, p);
        break;
      case ObsKind::kInvariantError: {
        const double value = model.observable(o.index, q, p);
        if (first) initial[j] = value;
        row[j] = value - initial[j];
        break;
      }
    }
  }
}

}  // namespace nhsim

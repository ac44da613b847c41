// Sweeps (EnsembleSpec::sweep): one job over a grid of system parameters and integrator
// settings. Each combination of the axes' steps is a case, run as the ensemble it would be as a
// job of its own (docs/reference-spec.md "Sweeps").
#pragma once

#include <cstdint>
#include <vector>

#include "nhsim/ensemble_result.hpp"
#include "nhsim/ensemble_spec.hpp"

namespace nhsim {

/// Most cases one sweep may have.
inline constexpr std::int64_t kMaxSweepCases = 1000;

/// Most cases one sweep of a user-defined system may have: each case compiles the system, and
/// the job holds every case's compiled system (measured about 0.46 MB and 2.7 ms per case for
/// the contact oscillator of examples/custom_contact_oscillator.json, 2026-11-29).
inline constexpr std::int64_t kMaxCustomSweepCases = 64;

/// One case of a sweep: the values of its fields and the spec it runs.
struct SweepCase {
  std::vector<SweepValue> values;  ///< axis by axis, within an axis in the axis's field order
  EnsembleSpec spec;               ///< the sweep's spec without `sweep`, the fields set
};

/// The cases of spec.sweep: every combination of the axes' steps, the first axis varying
/// slowest; within an axis the fields take their values together (values[k] at step k). Each
/// case's spec is `spec` with `sweep` cleared and these fields set (each value a number):
///   parameters.NAME       a system parameter (of a user-defined system: its CustomParameter)
///   h, sample_every, newton_tol, newton_max_iter
///                         of every integrator choice; integrators[i].F of choice i and
///                         integrators[i:j].F of choices i to j - 1 (F one of these four)
///   t_final
///   controls[i].value, controls[i].amplitude, controls[i].omega, controls[i].phase
///   initial_conditions.energy_shell.energy, initial_conditions.energy_shell.q_std,
///   initial_conditions.velocity_perturbation.v_std
/// The trajectory count is every case's. Initial states come from each case's own spec: explicit
/// states are the same in every case; generated ones are drawn from the same (seed, i) streams
/// (common random numbers), so they are identical where the swept fields do not enter the
/// draw (integrator settings, t_final, controls) and differ only by the case's system
/// otherwise. Throws SpecError naming "sweep[a]" or "sweep[a].FIELD" for an empty axis, a
/// field not listed above or not in this spec, values of different lengths within an axis, a
/// value that is not finite (or not a whole number for sample_every and newton_max_iter), a
/// field that two axes set, or more than kMaxSweepCases cases (kMaxCustomSweepCases for a
/// user-defined system). The cases' specs themselves are checked by Problem.
std::vector<SweepCase> sweep_cases(const EnsembleSpec& spec);

/// The number of cases of spec.sweep (1 without a sweep), at most kMaxSweepCases + 1 (more are
/// refused by sweep_cases()); does not check the fields.
std::int64_t sweep_case_count(const EnsembleSpec& spec);

}  // namespace nhsim

// Wire → core: the one place where a SubmitEnsembleRequest becomes a core EnsembleSpec.
#pragma once

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"
#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::wire {

/// Converts the spec fields of `request` to a core EnsembleSpec, field by field under the same
/// names (the label is not part of the spec; the server keeps it with the job).
///
/// Wire defaults: an unset `sample_every` becomes 1; an unset `q_std` / `max_attempts` of the
/// energy shell keeps the core defaults (0.5, 10000); 0 for `newton_tol` / `newton_max_iter`
/// means the integrator's default, as in the core.
///
/// Throws nhsim::SpecError with field "initial_conditions" when more than one of
/// `initial_conditions.states` (non-empty), `.energy_shell` and `.velocity_perturbation` is
/// given (the core's InitialConditions holds one source). None given becomes an empty list of
/// states, which nhsim::validate() refuses; everything else is checked there too, not here.
nhsim::EnsembleSpec from_proto(const nhsim::v1::SubmitEnsembleRequest& request);

/// The core definition of a user-defined system, field by field (checked by
/// compile_custom_system(), not here).
nhsim::CustomSystemSpec from_proto(const nhsim::v1::CustomSystem& system);

/// The core partial result of a v1::PartialResult (spec_hash = spec_sha256; the spec itself is
/// not part of it). Checks the structure, not the fit to a spec (merge_partial() and finish()
/// do that): throws std::invalid_argument naming the field for a format_version other than
/// kPartialResultFormat, ranges that are not sorted, disjoint and within [0, n_trajectories),
/// an exact sum or sketch whose parts are inconsistent, or failure counts that do not add up.
nhsim::PartialResult from_proto(const nhsim::v1::PartialResult& partial);

}  // namespace nhsim::wire

// Wire → core: the one place where a SubmitEnsembleRequest becomes a core EnsembleSpec.
#pragma once

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// Converts the spec fields of `request` to a core EnsembleSpec, field by field under the same
/// names (the label is not part of the spec; the server keeps it with the job).
///
/// Wire defaults: an unset `sample_every` becomes 1; an unset `q_std` / `max_attempts` of the
/// energy shell keeps the core defaults (0.5, 10000); 0 for `newton_tol` / `newton_max_iter`
/// means the integrator's default, as in the core.
///
/// Throws nhsim::SpecError with field "initial_conditions" when both or neither of
/// `initial_conditions.states` (non-empty) and `initial_conditions.energy_shell` are given.
/// Everything else is checked by nhsim::validate(), not here.
nhsim::EnsembleSpec from_proto(const nhsim::v1::SubmitEnsembleRequest& request);

}  // namespace nhsim::server

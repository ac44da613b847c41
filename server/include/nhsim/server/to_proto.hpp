// Core → wire: the one place where core results and catalog entries become proto messages.
#pragma once

#include "nhsim/catalog.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// Field-by-field copies under the same names. `sample_every` is always set explicitly.
/// IntegratorInfo::requires_ becomes `requirements` (`requires` is a C++20 keyword).
/// The result's `job_id` and `label` are left empty: the server sets them.
/// None of these throws except std::bad_alloc.
nhsim::v1::IntegratorChoice to_proto(const nhsim::IntegratorChoice& choice);
nhsim::v1::EnsembleResult to_proto(const nhsim::EnsembleResult& result);
nhsim::v1::SystemInfo to_proto(const nhsim::SystemInfo& system);
nhsim::v1::IntegratorInfo to_proto(const nhsim::IntegratorInfo& integrator);

}  // namespace nhsim::server

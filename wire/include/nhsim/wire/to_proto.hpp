// Core → wire: the one place where core results and catalogue entries become proto messages.
#pragma once

#include <cstdint>

#include "nhsim/catalogue.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"
#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::wire {

/// Field-by-field copies under the same names. `sample_every` is always set explicitly.
/// IntegratorInfo::requires_ becomes `requirements` (`requires` is a C++20 keyword).
/// The result's `job_id` and `label` are left empty: the server sets them.
/// None of these throws except std::bad_alloc.
nhsim::v1::IntegratorChoice to_proto(const nhsim::IntegratorChoice& choice);
nhsim::v1::EnsembleResult to_proto(const nhsim::EnsembleResult& result);
nhsim::v1::SystemInfo to_proto(const nhsim::SystemInfo& system);
nhsim::v1::IntegratorInfo to_proto(const nhsim::IntegratorInfo& integrator);

/// The format_version written into every v1::PartialResult; from_proto() refuses others.
inline constexpr std::uint32_t kPartialResultFormat = 2;

/// The partial result with its spec (the request it was computed from: `spec_sha256` is
/// partial.spec_hash, which the caller set to spec_sha256(spec)). Canonical: the same
/// statistics give the same message.
nhsim::v1::PartialResult to_proto(const nhsim::PartialResult& partial,
                                  const nhsim::v1::SubmitEnsembleRequest& spec);

}  // namespace nhsim::wire

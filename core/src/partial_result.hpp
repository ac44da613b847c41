// Internal: the checks on partial results' trajectory ranges (partial_result.cpp).
#pragma once

#include <cstdint>

#include "nhsim/ensemble_partial.hpp"

namespace nhsim {

/// Throws PartialMismatch unless `partial` covers [0, n_trajectories) and was made for
/// n_trajectories trajectories.
void check_complete(const PartialResult& partial, std::int64_t n_trajectories);

}  // namespace nhsim

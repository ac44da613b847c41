// Ensembles run in this process, without a server: `nhsim run` (a whole spec or one shard of it)
// and `nhsim merge` (partial results into one). The same core and conversions as nhsimd, so a
// local result, a merge of shards and a server's result have the same statistics, bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"
#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::client {

/// The trajectories of "I/N" (shard I of N, nhsim::shard_range) or "LO:HI" ([LO, HI)) of a
/// spec with n_trajectories trajectories. Throws std::invalid_argument naming the option
/// (--shard or --trajectories) for text of another form or a range outside [0, n_trajectories].
nhsim::TrajectoryRange parse_shard(std::string_view text, std::int64_t n_trajectories);
nhsim::TrajectoryRange parse_trajectories(std::string_view text, std::int64_t n_trajectories);

/// Number of trajectories of the spec. Throws nhsim::SpecError for an invalid spec.
std::int64_t trajectory_count(const nhsim::v1::SubmitEnsembleRequest& spec);

/// Runs trajectories `range` of `spec` on `threads` threads (0: all cores) and returns their
/// partial result, spec and spec hash included. Throws nhsim::SpecError naming the field for an
/// invalid spec.
nhsim::v1::PartialResult run_range(const nhsim::v1::SubmitEnsembleRequest& spec,
                                   nhsim::TrajectoryRange range, int threads,
                                   const nhsim::ProgressFn& progress = {});

/// Runs a spec with `until` (a run to a requested precision) whole, in rounds until its targets
/// hold (nhsim::run_ensemble), and returns its result, the label echoed.
nhsim::v1::EnsembleResult run_until(const nhsim::v1::SubmitEnsembleRequest& spec, int threads,
                                    const nhsim::ProgressFn& progress = {});

/// The merge of the partial result files (load_partial, nhsim::merge_partial), read one at a
/// time; any order gives the same bits. `files` must not be empty. Throws FileError for a file
/// that cannot be read; std::invalid_argument naming the file for a malformed partial or one
/// that does not belong with the others (nhsim::PartialMismatch: other spec, overlapping
/// ranges), or for parts of different fingerprints (wire::check_same_fingerprint) unless
/// `allow_mixed_builds`. The merge carries the parts' fingerprint ("mixed" when they differ).
nhsim::v1::PartialResult merge_files(const std::vector<std::string>& files,
                                     bool allow_mixed_builds = false);

/// Whether the partial covers every trajectory of its spec.
bool complete(const nhsim::v1::PartialResult& partial);

/// The ensemble result of a complete partial, the label of its spec echoed. Throws
/// nhsim::PartialMismatch naming the first missing range.
nhsim::v1::EnsembleResult finish(const nhsim::v1::PartialResult& partial, int threads);

}  // namespace nhsim::client

// The part file: a partial result as written by `nhsim run --shard --out` and read by `nhsim
// merge` and the Slurm executor. Binary nhsim.v1.PartialResult whose last field is
// content_sha256, the SHA-256 of every byte before it, so that any damage to the file is
// detected (without checksums, 20 random bit flips in a 7.3 MB part went unnoticed).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::wire {

/// The bytes of a part file holding `partial` (its content_sha256 is ignored and written last).
std::string part_file_bytes(const nhsim::v1::PartialResult& partial);

/// Parses a part file named `name` (for the messages). Throws std::invalid_argument "NAME: ..."
/// when it does not parse, when its content_sha256 does not match its bytes ("damaged"), or when
/// its spec_sha256 is not the hash of its spec. A file without content_sha256 (written before
/// it existed) is taken as it is.
nhsim::v1::PartialResult parse_part_file(std::string_view bytes, const std::string& name);

/// Throws std::invalid_argument naming each part and its fingerprint when the parts'
/// fingerprints (bits_fingerprint of their writers) differ: their bits may differ where the
/// builds or math libraries round differently, and a merge would match no machine's run.
/// `names[i]` names `fingerprints[i]`; `remedy` (may be empty) ends the first line.
void check_same_fingerprint(const std::vector<std::string>& names,
                            const std::vector<std::string>& fingerprints,
                            const std::string& remedy = "");

}  // namespace nhsim::wire

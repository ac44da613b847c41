// Spec files in, result files out: the protobuf JSON mapping (docs/design.md, "Service contract").
#pragma once

#include <google/protobuf/message.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nhsim/v1/ensemble.pb.h"
#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::client {

/// A file that cannot be read, parsed or written. what() names the file and the cause.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file's bytes (text or binary). Throws FileError naming the file.
std::string read_text_file(const std::filesystem::path& path);

/// Parses a spec: the protobuf JSON mapping of nhsim.v1.SubmitEnsembleRequest (proto or
/// lowerCamel field names; unknown fields are errors). Throws FileError
/// "<source_name>: <parser message>".
nhsim::v1::SubmitEnsembleRequest parse_spec(std::string_view json, const std::string& source_name);

/// Reads and parses the spec file `path` (see parse_spec); "-" reads standard input. Throws
/// FileError.
nhsim::v1::SubmitEnsembleRequest load_spec(const std::filesystem::path& path);

/// Reads and parses a result file written by `nhsim submit --wait --json` or `nhsim result
/// --json` (nhsim.v1.EnsembleResult, protobuf JSON mapping). Throws FileError.
nhsim::v1::EnsembleResult load_result(const std::filesystem::path& path);

/// `message` as indented JSON with proto field names (snake_case), fields at their default
/// value included, counts as numbers (unquote_counts), newline-terminated.
std::string to_json(const google::protobuf::Message& message);

/// `json`, the protobuf JSON of a message of `type`, with the values of its int64 fields as JSON
/// numbers: the protobuf JSON mapping writes them as strings ("4"), for readers whose numbers are
/// doubles, but every int64 field of nhsim.v1 is a count or an index, far below 2^53. The uint64
/// seeds stay strings (a seed may exceed 2^53), and so does a field whose name another field of
/// another type shares. Both spellings parse back to the same message.
std::string unquote_counts(std::string_view json, const google::protobuf::Descriptor& type);

/// Writes `content` to `path` atomically: to a temporary file beside it, flushed to disk, then
/// renamed over `path`, so a reader (or a retried task) sees the old file or the whole new one,
/// never a part. Creates missing parent directories. Throws FileError.
void write_text_file(const std::filesystem::path& path, std::string_view content);

/// Reads a partial result file written by `nhsim run --out` or `nhsim merge --out` (a part
/// file, wire::parse_part_file). Throws FileError when it cannot be read or parsed, when its
/// content checksum fails, or when its spec_sha256 is not the hash of its spec (a damaged or
/// edited file).
nhsim::v1::PartialResult load_partial(const std::filesystem::path& path);

/// Checks, before a long run, that write_text_file(path, ...) can write there: creates the parent
/// directories and a probe file beside `path` (removed again). Throws FileError
/// "<path>: cannot create directory ..." or "<path>: cannot write: <reason>".
void check_writable(const std::filesystem::path& path);

/// Writes `partial` to `path` as a part file (wire::part_file_bytes: binary protobuf with the
/// checksum of its content last), atomically (see write_text_file).
void write_partial(const std::filesystem::path& path, const nhsim::v1::PartialResult& partial);

}  // namespace nhsim::client

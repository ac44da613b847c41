// One-line logging to stderr for nhsimd: "<UTC time> nhsimd: <message>".
#pragma once

#include <string_view>

namespace nhsim::server {

/// Writes `message` as one line to stderr, prefixed with the UTC time (ISO 8601, milliseconds)
/// and "nhsimd:"; control characters in `message` become spaces, so one call is one line.
/// Thread-safe: lines from different threads never interleave.
void log_line(std::string_view message);

}  // namespace nhsim::server

// nhsimd's log: one JSON object per line on stderr (JSON lines), e.g.
//   {"time":"2026-11-23T05:01:22.123Z","level":"info","job":"5f41…","identity":"alice",
//    "msg":"job 5f41… queued: system=chaotic_quartic trajectories=8"}
// Messages are cut to kMaxLogMessage bytes; tokens and other credentials are never logged.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace nhsim::server {

enum class LogLevel { kInfo, kWarning, kError };

/// Longest message written; longer ones are cut and marked with their length.
inline constexpr std::size_t kMaxLogMessage = 2048;

/// The JSON line for `message` (without the newline): time (UTC, ISO 8601, milliseconds),
/// level, job and identity when not empty, msg. Strings are escaped; bytes that are not UTF-8
/// become U+FFFD.
std::string log_json(LogLevel level, std::string_view message, std::string_view job = {},
                     std::string_view identity = {});

/// Writes log_json(...) as one line to stderr. Thread-safe: lines never interleave.
void log_line(std::string_view message, LogLevel level = LogLevel::kInfo);

/// A line about one job: its id and the identity that owns it are fields of their own.
void log_job(std::string_view job, std::string_view identity, std::string_view message,
             LogLevel level = LogLevel::kInfo);

/// "60 s", "2.5 s": a duration for log lines and error messages.
std::string seconds_text(std::chrono::milliseconds duration);

/// Lets a line that any caller can trigger (an unauthenticated call) through at most once per
/// `interval`, and counts the ones it holds back, so that a flood of such calls cannot flood the
/// log. Thread-safe.
class LogThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogThrottle(Clock::duration interval) : interval_(interval) {}
  /// Whether to write the line now (the first call, then once `interval` has passed since the
  /// last line written); `held_back` is set to how many calls it held back since that line.
  bool allow(std::int64_t& held_back, Clock::time_point now = Clock::now());

 private:
  Clock::duration interval_;
  std::mutex mutex_;
  bool logged_ = false;
  Clock::time_point last_{};
  std::int64_t held_back_ = 0;
};

}  // namespace nhsim::server

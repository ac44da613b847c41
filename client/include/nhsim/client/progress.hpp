// Job progress for the terminal: a redrawn bar on a TTY, plain lines otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::client {

/// Shows the messages of a WatchJob stream on `out` (not owned).
/// With `bar`, one line "[#####-----]  45.0%  360/800 trajectories  RUNNING  ETA 1m05s" is
/// redrawn in place (carriage return) and ended by finish(). Without it, one plain line
/// (job_line()) is written when the state changes and at each further 10% of the trajectories,
/// with the ETA while running. The ETA extrapolates the rate since the first RUNNING update
/// seen; it shows once some work was done after that update.
/// The count never goes backwards: while a cancel winds the job down the server counts skipped
/// runs as done, so the count shown stays at the last one before the cancel ("?" when none was
/// seen) until the final state brings the runs that ran.
/// With a `name` ("run spec.json"), the lines and the bar start with it instead of "job <id>".
class ProgressPrinter {
 public:
  ProgressPrinter(std::FILE* out, bool bar, std::string name = {})
      : out_(out), bar_(bar), name_(std::move(name)) {}
  void update(const nhsim::v1::Job& job,
              std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  /// Ends the bar's line (no-op without bar or before any update).
  void finish();

 private:
  /// The count to show for `job` (see the class comment); "?" while unknown.
  std::string done_text(const nhsim::v1::Job& job);

  std::FILE* out_;
  bool bar_;
  std::string name_;
  std::optional<std::int64_t> done_before_cancel_;
  bool drawn_ = false;
  nhsim::v1::JobState last_state_ = nhsim::v1::JOB_STATE_UNSPECIFIED;
  bool last_cancel_requested_ = false;
  int last_decile_ = -1;
  /// The first RUNNING update: when, and the steps (or trajectories) done then (a resumed job
  /// starts > 0).
  std::optional<std::chrono::steady_clock::time_point> started_;
  std::int64_t done_at_start_ = 0;
};

/// `nhsim run --progress json`: the progress as JSON lines on `out` (not owned), for programs
/// (the Python package's nhsim.run): {"trajectories_done": D, "trajectories_total": T} at most
/// every `interval` and always the last, with finish(); error_line() instead on an error.
class JsonProgress {
 public:
  explicit JsonProgress(
      std::FILE* out, std::chrono::steady_clock::duration interval = std::chrono::milliseconds(200))
      : out_(out), interval_(interval) {}
  void update(std::int64_t done, std::int64_t total,
              std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  /// Writes the last count if update() held it back.
  void finish();

 private:
  void write(std::int64_t done, std::int64_t total);

  std::FILE* out_;
  std::chrono::steady_clock::duration interval_;
  std::optional<std::chrono::steady_clock::time_point> written_;
  std::optional<std::pair<std::int64_t, std::int64_t>> held_;
};

/// The line {"error": {"code": CODE, "message": MESSAGE}} (newline-terminated) that ends a
/// `--progress json` stream on an error; `code` is a gRPC status code name, e.g.
/// "INVALID_ARGUMENT" (a bad spec or option), as the server would answer.
std::string json_error_line(std::string_view code, std::string_view message);

/// Seconds as the ETA shows them: "45s", "12m05s", "3h07m".
std::string eta_text(double seconds);

}  // namespace nhsim::client

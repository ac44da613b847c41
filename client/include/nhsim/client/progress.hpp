// Job progress for the terminal: a redrawn bar on a TTY, plain lines otherwise.
#pragma once

#include <cstdio>
#include <string>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::client {

/// Shows the messages of a WatchJob stream on `out` (not owned).
/// With `bar`, one line "[#####-----]  45.0%  360/800 trajectories  RUNNING" is redrawn in place
/// (carriage return) and ended by finish(). Without it, one plain line (job_line()) is written
/// when the state changes and at each further 10% of the trajectories.
class ProgressPrinter {
 public:
  ProgressPrinter(std::FILE* out, bool bar) : out_(out), bar_(bar) {}
  void update(const nhsim::v1::Job& job);
  /// Ends the bar's line (no-op without bar or before any update).
  void finish();

 private:
  std::FILE* out_;
  bool bar_;
  bool drawn_ = false;
  nhsim::v1::JobState last_state_ = nhsim::v1::JOB_STATE_UNSPECIFIED;
  int last_decile_ = -1;
};

}  // namespace nhsim::client

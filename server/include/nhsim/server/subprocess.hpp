// Running a command-line program and reading what it prints (the Slurm executor's sbatch,
// squeue and scancel).
#pragma once

#include <string>
#include <vector>

namespace nhsim::server {

struct CommandResult {
  int exit_code = -1;  ///< -1 if the program could not be started or was killed by a signal
  std::string output;  ///< stdout and stderr together, at most the first 64 KiB
};

/// Runs argv[0] (looked up in PATH) with the arguments argv[1..], stdin from /dev/null, and
/// waits for it. Never throws except std::bad_alloc; a program that cannot be started gives
/// exit_code -1 and the reason in output.
CommandResult run_command(const std::vector<std::string>& argv);

}  // namespace nhsim::server

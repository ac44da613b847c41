// The Slurm executor: a job becomes one Slurm job array whose task i runs
// `nhsim run spec.json --shard i/N --out part-i.pb` with the nhsim binary of this build; nhsimd
// follows the tasks (squeue and the partial files), retries a failed task a bounded number of
// times, cancels with scancel and merges the partials as they arrive. The merged result is
// bit-identical to the local executor's (associative partial results, docs/design.md "Ensemble
// semantics"). Slurm is driven through its command-line tools (sbatch, squeue, scancel), its
// stable interface; SLURM_CONF and PATH come from nhsimd's environment.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "nhsim/server/executor.hpp"

namespace nhsim::server {

struct SlurmOptions {
  /// Directory shared by nhsimd and the compute nodes (same path everywhere). Job j works in
  /// work_dir/j: spec.json, task.sh, slurm_jobs (the Slurm array ids), part-i.pb, logs/.
  std::filesystem::path work_dir;
  std::string partition;           ///< sbatch --partition; empty: the cluster's default
  std::string account;             ///< sbatch --account; empty: none
  std::string time_limit;          ///< sbatch --time per task, e.g. "01:00:00"; empty: none
  int max_running = 0;             ///< array tasks in flight (--array=...%M); 0: no limit
  std::int64_t shard_size = 1000;  ///< trajectories per task (the last ones may differ)
  int cpus_per_task = 1;           ///< sbatch --cpus-per-task, and nhsim run --threads
  int max_attempts = 3;            ///< runs of one task before the job FAILS
  std::filesystem::path nhsim;     ///< the nhsim binary; empty: the one of this build
  double poll_seconds = 0.5;       ///< between squeue calls
};

/// Checks the options (work_dir set and writable, positive sizes, sbatch and the nhsim binary
/// runnable) and returns the executor; `merge_threads` are the threads for the final
/// statistics (0: all cores). Throws std::invalid_argument naming the option otherwise.
std::unique_ptr<Executor> make_slurm_executor(SlurmOptions options, int merge_threads);

}  // namespace nhsim::server

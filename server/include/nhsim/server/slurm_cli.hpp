// Slurm's command-line tools as functions (sbatch, squeue, scancel): the stable interface of
// Slurm, found on PATH, configured by SLURM_CONF in nhsimd's environment.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace nhsim::server {

/// What `sbatch --array` needs besides the script.
struct ArraySubmission {
  std::string job_name;          ///< --job-name
  std::string array;             ///< --array, e.g. "0,3,4%8"
  std::filesystem::path output;  ///< --output pattern, e.g. ".../task-%A_%a.out"
  int cpus_per_task = 1;         ///< --cpus-per-task
  std::string partition;         ///< --partition; empty: none
  std::string account;           ///< --account; empty: none
  std::string time_limit;        ///< --time; empty: none
  std::filesystem::path script;  ///< the batch script
};

/// Submits the array job; returns its id. Throws std::runtime_error with sbatch's output.
std::string sbatch_array(const ArraySubmission& submission);

/// The array task indices of the jobs named `job_name` still in the queue (pending, running,
/// completing). False if squeue failed.
bool squeue_tasks(const std::string& job_name, std::set<std::int64_t>& indices);

/// Whether the Slurm controller answers: "" when it does, else squeue's output.
std::string slurm_controller_problem();

/// scancel the given job ids; returns scancel's output when it failed, else "".
std::string scancel(const std::vector<std::string>& job_ids);

/// "a,b,c".
std::string comma_list(const std::vector<std::string>& items);

}  // namespace nhsim::server

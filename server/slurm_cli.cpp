#include "nhsim/server/slurm_cli.hpp"

#include <sstream>
#include <stdexcept>

#include "nhsim/server/subprocess.hpp"

namespace nhsim::server {

std::string sbatch_array(const ArraySubmission& s) {
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--job-name=" + s.job_name,
                                   "--array=" + s.array,
                                   "--output=" + s.output.string(),
                                   "--cpus-per-task=" + std::to_string(s.cpus_per_task)};
  if (!s.partition.empty()) argv.push_back("--partition=" + s.partition);
  if (!s.account.empty()) argv.push_back("--account=" + s.account);
  if (!s.time_limit.empty()) argv.push_back("--time=" + s.time_limit);
  argv.push_back(s.script.string());
  const CommandResult sbatch = run_command(argv);
  // --parsable prints "id" or "id;cluster".
  const std::string id = sbatch.output.substr(0, sbatch.output.find_first_of(";\n"));
  if (sbatch.exit_code != 0 || id.empty() ||
      id.find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error("sbatch failed: " + sbatch.output);
  }
  return id;
}

bool squeue_tasks(const std::string& job_name, std::set<std::int64_t>& indices) {
  const CommandResult squeue =
      run_command({"squeue", "--noheader", "--array", "--name=" + job_name, "--format=%K %T"});
  if (squeue.exit_code != 0) return false;
  std::istringstream lines(squeue.output);
  std::string index, state;
  while (lines >> index >> state) {
    if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) {
      indices.insert(std::stoll(index));
    }
  }
  return true;
}

std::string slurm_controller_problem() {
  // A name no job has: an empty answer from a controller that is there.
  const CommandResult squeue = run_command({"squeue", "--noheader", "--name=nhsim-health-probe"});
  if (squeue.exit_code == 0) return {};
  return "squeue fails (exit " + std::to_string(squeue.exit_code) +
         "): " + squeue.output.substr(0, 200);
}

std::string scancel(const std::vector<std::string>& job_ids) {
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  const CommandResult result = run_command(argv);
  return result.exit_code == 0 ? std::string() : result.output;
}

std::string comma_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    out += item;
  }
  return out;
}

}  // namespace nhsim::server

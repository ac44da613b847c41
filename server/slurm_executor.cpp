// The Slurm executor of slurm_executor.hpp.
#include "nhsim/server/slurm_executor.hpp"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "nhsim/server/from_proto.hpp"
#include "nhsim/server/log.hpp"
#include "nhsim/server/subprocess.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Single-quoted for sh.
std::string sh_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_file(const fs::path& path, const std::string& content, bool executable = false) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error(temporary.string() + ": cannot write");
  }
  if (executable) fs::permissions(temporary, fs::perms::owner_all, fs::perm_options::add);
  fs::rename(temporary, path);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

/// The last `n` bytes of a file ("" if it cannot be read).
std::string tail(const fs::path& path, std::size_t n) {
  const std::string text = read_file(path);
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

/// "0,3,4" for {0, 3, 4}.
std::string index_list(const std::vector<std::int64_t>& indices) {
  std::string out;
  for (std::int64_t i : indices) {
    if (!out.empty()) out += ',';
    out += std::to_string(i);
  }
  return out;
}

/// The nhsim binary of this build: beside nhsimd (installed), or ../client/nhsim (build tree).
fs::path nhsim_of_this_build() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    for (const fs::path& candidate :
         {self.parent_path() / "nhsim", self.parent_path().parent_path() / "client" / "nhsim"}) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "nhsim";
}

/// One shard (array task index) of a job.
struct Shard {
  TrajectoryRange range;
  int attempts = 0;        ///< array tasks submitted for it
  std::string last_array;  ///< Slurm array job id of the latest attempt
  bool done = false;
};

class SlurmExecutor final : public Executor {
 public:
  SlurmExecutor(SlurmOptions options, int merge_threads)
      : options_(std::move(options)), merge_threads_(merge_threads) {}

  std::string name() const override { return "slurm"; }

  EnsembleResult run(const JobRun& job) override {
    const fs::path dir = options_.work_dir / job.id;
    const std::int64_t n = trajectory_count(job.spec);
    const std::int64_t n_shards =
        std::max<std::int64_t>(1, (n + options_.shard_size - 1) / options_.shard_size);
    std::vector<Shard> shards(static_cast<std::size_t>(n_shards));
    for (std::int64_t i = 0; i < n_shards; ++i) {
      shards[static_cast<std::size_t>(i)].range = shard_range(n, i, n_shards);
    }
    const std::string& expected_hash = job.spec_hash;
    const std::int64_t choices = static_cast<std::int64_t>(job.spec.integrators.size());
    const std::string job_name = "nhsim-" + job.id;
    std::vector<std::string> arrays;  // every array job submitted, oldest first

    // A job resumed after a restart of nhsimd adopts its arrays: the tasks still queued are
    // followed, the partials written are merged, and only the rest is submitted again.
    std::vector<std::int64_t> to_submit;
    if (fs::exists(dir / "slurm_jobs")) {
      std::istringstream ids(read_file(dir / "slurm_jobs"));
      for (std::string id; ids >> id;) arrays.push_back(id);
      std::set<std::int64_t> active;
      if (!queued_tasks(job_name, active)) throw std::runtime_error("squeue failed");
      for (std::int64_t i = 0; i < n_shards; ++i) {
        Shard& shard = shards[static_cast<std::size_t>(i)];
        if (active.count(i) != 0) {
          shard.attempts = 1;
          shard.last_array = arrays.empty() ? "?" : arrays.back();
        } else if (!fs::exists(dir / ("part-" + std::to_string(i) + ".pb"))) {
          to_submit.push_back(i);
        }
      }
      log_line("job " + job.id + " adopts slurm arrays " + index_list_of(arrays) + ": " +
               std::to_string(active.size()) + " tasks queued, " +
               std::to_string(to_submit.size()) + " to submit again");
    } else {
      write_job_files(job, dir, n_shards);
      for (std::int64_t i = 0; i < n_shards; ++i) to_submit.push_back(i);
    }
    if (!to_submit.empty()) submit(job, dir, job_name, to_submit, shards, arrays);

    PartialResult merged;
    bool any_merged = false;
    std::int64_t done_trajectories = 0;
    int squeue_failures = 0;
    for (;;) {
      if (job.cancel.load()) {
        cancel_all(job, job_name, arrays);
        break;
      }
      if (job.halt.load()) throw Interrupted();  // shutdown: the array runs on; adopted later
      std::set<std::int64_t> active;
      if (!queued_tasks(job_name, active)) {
        if (++squeue_failures * options_.poll_seconds > 30.0) {
          cancel_all(job, job_name, arrays);
          throw std::runtime_error("squeue has failed for 30 s; the Slurm tasks were cancelled");
        }
        wait(job);
        continue;
      }
      squeue_failures = 0;
      std::vector<std::int64_t> retry;
      for (std::int64_t i = 0; i < n_shards; ++i) {
        Shard& shard = shards[static_cast<std::size_t>(i)];
        if (shard.done || active.count(i) != 0) continue;
        // A task writes its partial (atomically) before it exits, so a task that has left the
        // queue without one has failed.
        const fs::path part = dir / ("part-" + std::to_string(i) + ".pb");
        if (fs::exists(part)) {
          absorb(part, expected_hash, merged, any_merged);
          shard.done = true;
          done_trajectories += shard.range.end - shard.range.begin;
          if (job.progress) job.progress(done_trajectories * choices, n * choices);
        } else if (shard.attempts < options_.max_attempts) {
          log_line("job " + job.id + " slurm task " + shard.last_array + "_" + std::to_string(i) +
                   " ended without a partial result (attempt " + std::to_string(shard.attempts) +
                   " of " + std::to_string(options_.max_attempts) + ")");
          retry.push_back(i);
        } else {
          cancel_all(job, job_name, arrays);
          throw std::runtime_error(
              "slurm task for trajectories [" + std::to_string(shard.range.begin) + ", " +
              std::to_string(shard.range.end) + ") failed " + std::to_string(shard.attempts) +
              " times; its last log (" + task_log(dir, shard.last_array, i).string() +
              "): " + tail(task_log(dir, shard.last_array, i), 400));
        }
      }
      if (!retry.empty()) submit(job, dir, job_name, retry, shards, arrays);
      if (std::all_of(shards.begin(), shards.end(), [](const Shard& s) { return s.done; })) break;
      wait(job);
    }

    // After a cancel: the partials that arrived count; the other trajectories are cancelled.
    for (std::int64_t i = 0; i < n_shards; ++i) {
      Shard& shard = shards[static_cast<std::size_t>(i)];
      const fs::path part = dir / ("part-" + std::to_string(i) + ".pb");
      if (!shard.done && fs::exists(part)) {
        absorb(part, expected_hash, merged, any_merged);
        shard.done = true;
      }
    }
    if (!any_merged) merged.spec_hash = expected_hash;
    EnsembleResult result = job.cancel.load()
                                ? finish_cancelled(job.spec, std::move(merged), merge_threads_)
                                : finish(job.spec, merged, merge_threads_);
    if (!result.cancelled) {
      for (std::int64_t i = 0; i < n_shards; ++i) {
        std::error_code ignored;
        fs::remove(dir / ("part-" + std::to_string(i) + ".pb"), ignored);
      }
    }
    return result;
  }

 private:
  /// spec.json and task.sh of a new job.
  void write_job_files(const JobRun& job, const fs::path& dir, std::int64_t n_shards) const {
    fs::create_directories(dir / "logs");
    std::string spec_json;
    google::protobuf::util::JsonPrintOptions print;
    print.preserve_proto_field_names = true;
    if (!google::protobuf::util::MessageToJsonString(job.request, &spec_json, print).ok()) {
      throw std::runtime_error("cannot write the spec as JSON");
    }
    write_file(dir / "spec.json", spec_json + "\n");
    write_file(dir / "task.sh",
               "#!/bin/sh\n# nhsimd job " + job.id + ": array task i computes shard i/" +
                   std::to_string(n_shards) + " of spec.json.\nexec " +
                   sh_quote(options_.nhsim.string()) + " run " +
                   sh_quote((dir / "spec.json").string()) + " --shard \"$SLURM_ARRAY_TASK_ID/" +
                   std::to_string(n_shards) + "\" --out " + sh_quote(dir.string()) +
                   "/part-\"$SLURM_ARRAY_TASK_ID\".pb --threads " +
                   std::to_string(options_.cpus_per_task) + "\n",
               /*executable=*/true);
  }

  fs::path task_log(const fs::path& dir, const std::string& array, std::int64_t index) const {
    return dir / "logs" / ("task-" + array + "_" + std::to_string(index) + ".out");
  }

  /// Submits one array job with the given task indices; records its id in `arrays` and in
  /// dir/slurm_jobs. Throws std::runtime_error with sbatch's message if sbatch fails.
  void submit(const JobRun& job, const fs::path& dir, const std::string& job_name,
              const std::vector<std::int64_t>& indices, std::vector<Shard>& shards,
              std::vector<std::string>& arrays) const {
    std::string array = index_list(indices);
    if (options_.max_running > 0) {
      array += '%';
      array += std::to_string(options_.max_running);
    }
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--job-name=" + job_name,
                                     "--array=" + array,
                                     "--output=" + (dir / "logs" / "task-%A_%a.out").string(),
                                     "--cpus-per-task=" + std::to_string(options_.cpus_per_task)};
    if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
    if (!options_.account.empty()) argv.push_back("--account=" + options_.account);
    if (!options_.time_limit.empty()) argv.push_back("--time=" + options_.time_limit);
    argv.push_back((dir / "task.sh").string());
    const CommandResult sbatch = run_command(argv);
    const std::string id = sbatch.output.substr(0, sbatch.output.find_first_of(";\n"));
    if (sbatch.exit_code != 0 || id.empty() ||
        id.find_first_not_of("0123456789") != std::string::npos) {
      cancel_all(job, job_name, arrays);
      throw std::runtime_error("sbatch failed: " + sbatch.output);
    }
    arrays.push_back(id);
    std::ofstream(dir / "slurm_jobs", std::ios::app) << id << '\n';
    for (std::int64_t i : indices) {
      Shard& shard = shards[static_cast<std::size_t>(i)];
      ++shard.attempts;
      shard.last_array = id;
    }
    log_line("job " + job.id + " slurm array " + id + " submitted: tasks " + array);
  }

  /// The array task indices of job_name still in the queue (pending, running, completing).
  /// False if squeue failed.
  bool queued_tasks(const std::string& job_name, std::set<std::int64_t>& active) const {
    const CommandResult squeue =
        run_command({"squeue", "--noheader", "--array", "--name=" + job_name, "--format=%K %T"});
    if (squeue.exit_code != 0) return false;
    std::istringstream lines(squeue.output);
    std::string index, state;
    while (lines >> index >> state) {
      if (index.find_first_not_of("0123456789") == std::string::npos) {
        active.insert(std::stoll(index));
      }
    }
    return true;
  }

  /// scancel every array of the job, then waits (up to 10 s) until squeue shows none of its
  /// tasks.
  void cancel_all(const JobRun& job, const std::string& job_name,
                  const std::vector<std::string>& arrays) const {
    if (arrays.empty()) return;
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), arrays.begin(), arrays.end());
    const CommandResult scancel = run_command(argv);
    log_line("job " + job.id + " slurm arrays " + index_list_of(arrays) + " cancelled" +
             (scancel.exit_code == 0 ? "" : ": " + scancel.output));
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    std::set<std::int64_t> active;
    while (Clock::now() < deadline) {
      active.clear();
      if (queued_tasks(job_name, active) && active.empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    log_line("job " + job.id + " slurm tasks still queued 10 s after scancel");
  }

  static std::string index_list_of(const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) {
      if (!out.empty()) out += ',';
      out += id;
    }
    return out;
  }

  /// Reads a task's partial result file and merges it. Throws std::runtime_error for a file
  /// that is not a partial result of this spec.
  void absorb(const fs::path& part, const std::string& expected_hash, PartialResult& merged,
              bool& any_merged) const {
    v1::PartialResult wire;
    if (!wire.ParseFromString(read_file(part))) {
      throw std::runtime_error(part.string() + ": not a partial result");
    }
    if (wire.spec_sha256() != expected_hash) {
      throw std::runtime_error(part.string() + ": partial result of another spec");
    }
    try {
      absorb(from_proto(wire), merged, any_merged);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(part.string() + ": " + e.what());
    }
  }

  static void absorb(PartialResult partial, PartialResult& merged, bool& any_merged) {
    if (!any_merged) {
      merged = std::move(partial);
      any_merged = true;
    } else {
      merge_partial(merged, partial);
    }
  }

  /// Sleeps one poll interval, waking early on cancel.
  void wait(const JobRun& job) const {
    const auto until = Clock::now() + std::chrono::duration<double>(options_.poll_seconds);
    while (Clock::now() < until && !job.cancel.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  SlurmOptions options_;
  int merge_threads_;
};

}  // namespace

std::unique_ptr<Executor> make_slurm_executor(SlurmOptions options, int merge_threads) {
  if (options.work_dir.empty()) {
    throw std::invalid_argument("--slurm-dir: the slurm executor needs a shared directory");
  }
  options.work_dir = fs::absolute(options.work_dir);
  std::error_code error;
  fs::create_directories(options.work_dir, error);
  if (error || ::access(options.work_dir.c_str(), W_OK) != 0) {
    throw std::invalid_argument("--slurm-dir: " + options.work_dir.string() + " is not writable");
  }
  if (options.shard_size < 1) throw std::invalid_argument("--slurm-shard-size: must be >= 1");
  if (options.cpus_per_task < 1) throw std::invalid_argument("--slurm-cpus-per-task: must be >= 1");
  if (options.max_attempts < 1) throw std::invalid_argument("--slurm-max-attempts: must be >= 1");
  if (options.max_running < 0) throw std::invalid_argument("--slurm-max-running: must be >= 0");
  if (!(options.poll_seconds > 0.0)) throw std::invalid_argument("poll_seconds: must be > 0");
  if (options.nhsim.empty()) options.nhsim = nhsim_of_this_build();
  const CommandResult nhsim = run_command({options.nhsim.string(), "--help"});
  if (nhsim.exit_code != 0) {
    throw std::invalid_argument("--slurm-nhsim: cannot run " + options.nhsim.string() + ": " +
                                nhsim.output.substr(0, 200));
  }
  if (options.nhsim.is_relative() && options.nhsim.has_parent_path()) {
    options.nhsim = fs::absolute(options.nhsim);
  }
  const CommandResult sbatch = run_command({"sbatch", "--version"});
  if (sbatch.exit_code != 0) {
    throw std::invalid_argument("--executor slurm: cannot run sbatch: " + sbatch.output);
  }
  log_line("slurm executor: " + sbatch.output.substr(0, sbatch.output.find('\n')) + ", nhsim " +
           options.nhsim.string() + ", directory " + options.work_dir.string() + ", " +
           std::to_string(options.shard_size) + " trajectories per task");
  return std::make_unique<SlurmExecutor>(std::move(options), merge_threads);
}

}  // namespace nhsim::server

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

#include "nhsim/server/log.hpp"
#include "nhsim/server/slurm_cli.hpp"
#include "nhsim/server/subprocess.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/part_file.hpp"

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
  std::vector<std::string> items;
  for (std::int64_t i : indices) items.push_back(std::to_string(i));
  return comma_list(items);
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
  bool done = false;       ///< its partial is merged
};

/// One job on Slurm: its shards, its array jobs and the merged partials, followed until every
/// shard is done. Everything it writes is in options.work_dir / job id.
class SlurmJob {
 public:
  SlurmJob(const SlurmOptions& options, const JobRun& job)
      : options_(options),
        job_(job),
        dir_(options.work_dir / job.id),
        name_("nhsim-" + job.id),
        n_(trajectory_count(job.problem.spec())),
        choices_(choice_count(job.problem.spec())) {
    const std::int64_t n_shards =
        std::max<std::int64_t>(1, (n_ + options.shard_size - 1) / options.shard_size);
    shards_.resize(static_cast<std::size_t>(n_shards));
    for (std::int64_t i = 0; i < n_shards; ++i) shard(i).range = shard_range(n_, i, n_shards);
    merged_.spec_hash = job.spec_hash;
  }

  /// Submits the array; or, for a job resumed after a restart of nhsimd, adopts its arrays:
  /// tasks still queued are followed, partials written are merged, only the rest is submitted.
  void start() {
    std::vector<std::int64_t> to_submit;
    if (fs::exists(dir_ / "slurm_jobs")) {
      std::istringstream ids(read_file(dir_ / "slurm_jobs"));
      for (std::string id; ids >> id;) arrays_.push_back(id);
      std::set<std::int64_t> queued;
      if (!squeue_tasks(name_, queued)) throw std::runtime_error("squeue failed");
      for (std::int64_t i = 0; i < shard_count(); ++i) {
        if (queued.count(i) != 0) {
          shard(i).attempts = 1;
          shard(i).last_array = arrays_.empty() ? "?" : arrays_.back();
        } else if (!fs::exists(part(i))) {
          to_submit.push_back(i);
        }
      }
      log_job(job_.id, job_.owner,
              "job " + job_.id + " adopts slurm arrays " + comma_list(arrays_) + ": " +
                  std::to_string(queued.size()) + " tasks queued, " +
                  std::to_string(to_submit.size()) + " to submit again");
    } else {
      write_job_files();
      for (std::int64_t i = 0; i < shard_count(); ++i) to_submit.push_back(i);
    }
    if (!to_submit.empty()) submit(to_submit);
  }

  /// One look at the queue and the partial files: merges the partials that arrived and
  /// resubmits failed tasks. Returns true when every shard is done, false to be called again;
  /// false too when squeue failed (throws after it has failed for 30 s). Throws
  /// std::runtime_error when a task failed max_attempts times.
  bool poll() {
    std::set<std::int64_t> queued;
    if (!squeue_tasks(name_, queued)) {
      if (++squeue_failures_ * options_.poll_seconds > 30.0) {
        cancel();
        throw std::runtime_error("squeue has failed for 30 s; the Slurm tasks were cancelled");
      }
      return false;
    }
    squeue_failures_ = 0;
    std::vector<std::int64_t> retry;
    for (std::int64_t i = 0; i < shard_count(); ++i) {
      Shard& s = shard(i);
      if (s.done || queued.count(i) != 0) continue;
      // A task writes its partial (atomically) before it exits, so a task that has left the
      // queue without one has failed.
      if (fs::exists(part(i))) {
        absorb(i);
        if (job_.progress) job_.progress(done_ * choices_, n_ * choices_);
      } else if (s.attempts < options_.max_attempts) {
        log_job(job_.id, job_.owner,
                "job " + job_.id + " slurm task " + s.last_array + "_" + std::to_string(i) +
                    " ended without a partial result (attempt " + std::to_string(s.attempts) +
                    " of " + std::to_string(options_.max_attempts) + ")");
        retry.push_back(i);
      } else {
        cancel();
        throw std::runtime_error("slurm task for trajectories [" + std::to_string(s.range.begin) +
                                 ", " + std::to_string(s.range.end) + ") failed " +
                                 std::to_string(s.attempts) + " times; its last log (" +
                                 task_log(i).string() + "): " + tail(task_log(i), 400));
      }
    }
    if (!retry.empty()) submit(retry);
    return std::all_of(shards_.begin(), shards_.end(), [](const Shard& s) { return s.done; });
  }

  /// scancel every array of the job, then waits (up to 10 s) until squeue shows none of its
  /// tasks.
  void cancel() const {
    if (arrays_.empty()) return;
    const std::string failed = scancel(arrays_);
    log_job(job_.id, job_.owner,
            "job " + job_.id + " slurm arrays " + comma_list(arrays_) + " cancelled" +
                (failed.empty() ? "" : ": " + failed));
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      std::set<std::int64_t> queued;
      if (squeue_tasks(name_, queued) && queued.empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    log_job(job_.id, job_.owner, "job " + job_.id + " slurm tasks still queued 10 s after scancel");
  }

  /// The job's result: every shard merged, or (after a cancel) the partials that arrived, the
  /// other trajectories counted as cancelled. Removes the partial files of a complete result.
  EnsembleResult result(int merge_threads) {
    for (std::int64_t i = 0; i < shard_count(); ++i) {
      if (!shard(i).done && fs::exists(part(i))) absorb(i);
    }
    if (!job_.cancel.load()) {
      EnsembleResult result = finish(job_.problem, merged_, merge_threads);
      for (std::int64_t i = 0; i < shard_count(); ++i) {
        std::error_code ignored;
        fs::remove(part(i), ignored);
      }
      return result;
    }
    return finish_cancelled(job_.problem, std::move(merged_), merge_threads);
  }

 private:
  std::int64_t shard_count() const { return static_cast<std::int64_t>(shards_.size()); }
  Shard& shard(std::int64_t i) { return shards_[static_cast<std::size_t>(i)]; }
  fs::path part(std::int64_t i) const { return dir_ / ("part-" + std::to_string(i) + ".pb"); }
  fs::path task_log(std::int64_t i) const {
    return dir_ / "logs" /
           ("task-" + shards_[static_cast<std::size_t>(i)].last_array + "_" + std::to_string(i) +
            ".out");
  }

  /// spec.json and task.sh of a new job.
  void write_job_files() const {
    fs::create_directories(dir_ / "logs");
    std::string spec_json;
    google::protobuf::util::JsonPrintOptions print;
    print.preserve_proto_field_names = true;
    if (!google::protobuf::util::MessageToJsonString(job_.request, &spec_json, print).ok()) {
      throw std::runtime_error("cannot write the spec as JSON");
    }
    write_file(dir_ / "spec.json", spec_json + "\n");
    const std::string n_shards = std::to_string(shard_count());
    write_file(dir_ / "task.sh",
               "#!/bin/sh\n# nhsimd job " + job_.id + ": array task i computes shard i/" +
                   n_shards + " of spec.json.\nexec " + sh_quote(options_.nhsim.string()) +
                   " run " + sh_quote((dir_ / "spec.json").string()) +
                   " --shard \"$SLURM_ARRAY_TASK_ID/" + n_shards + "\" --out " +
                   sh_quote(dir_.string()) + "/part-\"$SLURM_ARRAY_TASK_ID\".pb --threads " +
                   std::to_string(options_.cpus_per_task) + "\n",
               /*executable=*/true);
  }

  /// Submits one array job of the given task indices; records its id in slurm_jobs.
  void submit(const std::vector<std::int64_t>& indices) {
    ArraySubmission submission;
    submission.job_name = name_;
    submission.array = index_list(indices);
    if (options_.max_running > 0) {
      submission.array += '%';
      submission.array += std::to_string(options_.max_running);
    }
    submission.output = dir_ / "logs" / "task-%A_%a.out";
    submission.cpus_per_task = options_.cpus_per_task;
    submission.partition = options_.partition;
    submission.account = options_.account;
    submission.time_limit = options_.time_limit;
    submission.script = dir_ / "task.sh";
    std::string id;
    try {
      id = sbatch_array(submission);
    } catch (const std::runtime_error&) {
      cancel();
      throw;
    }
    arrays_.push_back(id);
    std::ofstream(dir_ / "slurm_jobs", std::ios::app) << id << '\n';
    for (std::int64_t i : indices) {
      ++shard(i).attempts;
      shard(i).last_array = id;
    }
    log_job(job_.id, job_.owner,
            "job " + job_.id + " slurm array " + id + " submitted: tasks " + submission.array);
  }

  /// Merges shard i's partial file. Throws std::runtime_error for a file that is not a
  /// partial result of this spec.
  void absorb(std::int64_t i) {
    const fs::path file = part(i);
    v1::PartialResult wire;
    try {
      wire = wire::parse_part_file(read_file(file), file.string());
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
    if (wire.spec_sha256() != job_.spec_hash) {
      throw std::runtime_error(file.string() + ": partial result of another spec");
    }
    // Shards computed by different builds or math libraries (a mixed cluster) would merge into
    // bits that match no machine's run: the job fails naming them.
    if (fingerprint_file_.empty()) {
      fingerprint_file_ = file.string();
      fingerprint_ = wire.fingerprint();
    }
    try {
      wire::check_same_fingerprint({fingerprint_file_, file.string()},
                                   {fingerprint_, wire.fingerprint()});
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
    try {
      PartialResult partial = wire::from_proto(wire);
      if (merged_.ranges.empty() && merged_.choices.empty()) {
        merged_ = partial;
      } else {
        merge_partial(merged_, partial);
      }
      if (job_.completed) job_.completed(partial);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(file.string() + ": " + e.what());
    }
    shard(i).done = true;
    done_ += shard(i).range.end - shard(i).range.begin;
  }

  const SlurmOptions& options_;
  const JobRun& job_;
  const fs::path dir_;
  const std::string name_;  ///< Slurm job name of every array of the job
  const std::int64_t n_;
  const std::int64_t choices_;
  std::vector<Shard> shards_;
  std::vector<std::string> arrays_;  ///< every array job submitted, oldest first
  PartialResult merged_;
  std::string fingerprint_, fingerprint_file_;  ///< of the first shard merged, and its file
  std::int64_t done_ = 0;                       ///< trajectories merged
  int squeue_failures_ = 0;
};

class SlurmExecutor final : public Executor {
 public:
  SlurmExecutor(SlurmOptions options, int merge_threads)
      : options_(std::move(options)), merge_threads_(merge_threads) {}

  std::string name() const override { return "slurm"; }

  /// The controller is asked at most every 10 s (squeue may take seconds to give up).
  std::string problem() override {
    const auto now = Clock::now();
    if (now - last_check_ >= std::chrono::seconds(10)) {
      last_check_ = now;
      last_problem_ = slurm_controller_problem();
      if (!last_problem_.empty()) last_problem_ = "slurm executor: " + last_problem_;
    }
    return last_problem_;
  }

  std::string refuses(const EnsembleSpec& spec) const override {
    if (!spec.until.active()) return {};
    return "until: a run to a requested precision decides its trajectory count round by round, "
           "which the Slurm executor's fixed shards cannot; submit it to a server with the "
           "local executor, or run it with nhsim run";
  }

  EnsembleResult run(const JobRun& job) override {
    if (const std::string why = refuses(job.problem.spec()); !why.empty())
      throw std::runtime_error(why);
    SlurmJob slurm(options_, job);
    slurm.start();
    for (;;) {
      if (job.cancel.load()) {
        slurm.cancel();
        break;
      }
      if (job.halt.load()) throw Interrupted();  // shutdown: the array runs on; adopted later
      if (slurm.poll()) break;
      wait(job);
    }
    return slurm.result(merge_threads_);
  }

 private:
  /// Sleeps one poll interval, waking early on cancel or shutdown.
  void wait(const JobRun& job) const {
    const auto until = Clock::now() + std::chrono::duration<double>(options_.poll_seconds);
    while (Clock::now() < until && !job.halt.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  SlurmOptions options_;
  int merge_threads_;
  Clock::time_point last_check_{};  // problem() is called from one thread only
  std::string last_problem_;
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

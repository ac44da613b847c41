// The local executor: the core on this machine's oneTBB pool, in chunks of trajectories, with a
// checkpoint after the chunk that completes checkpoint_seconds of work since the last one. Each
// chunk runs on the job's share of the pool's threads at its start: a job running alone gets
// every job's threads, so one identity uses the whole machine when nobody else runs.
// Associative partial results make the chunking invisible: any chunking, and any resume point,
// gives the bits of one run_ensemble().
#include <sys/resource.h>
#include <tbb/global_control.h>
#include <tbb/task_scheduler_observer.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "nhsim/server/executor.hpp"

namespace nhsim::server {
namespace {

using Clock = std::chrono::steady_clock;

/// Lowers the calling thread's scheduling priority to the job threads' (Linux: nice applies per
/// thread). Health checks, metrics scrapes and RPCs run on gRPC's threads at the process's
/// priority, so they answer promptly while every core computes.
void run_at_job_priority() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kJobThreadNice);
}

/// Every oneTBB worker thread runs at the job threads' priority once it joins the pool.
class JobThreadPriority final : public tbb::task_scheduler_observer {
 public:
  JobThreadPriority() { observe(true); }
  ~JobThreadPriority() override { observe(false); }
  void on_scheduler_entry(bool worker) override {
    if (worker) run_at_job_priority();
  }
};

class LocalExecutor final : public Executor {
 public:
  LocalExecutor(int threads, double checkpoint_seconds, int concurrent_jobs)
      : threads_(threads),
        checkpoint_seconds_(checkpoint_seconds),
        concurrent_jobs_(std::max(1, concurrent_jobs)),
        workers_(tbb::global_control::max_allowed_parallelism,
                 worker_pool_size(threads, concurrent_jobs)) {}

  std::string name() const override { return "local"; }

  EnsembleResult run(const JobRun& job) override {
    run_at_job_priority();  // the job manager's thread computes in the job's arena too
    const RunningJob running(running_);
    if (job.problem.spec().until.active()) return run_until(job);
    const std::int64_t n = trajectory_count(job.problem.spec());
    const std::int64_t choices = choice_count(job.problem.spec());
    PartialResult done;
    done.spec_hash = job.spec_hash;
    bool any = false;
    std::int64_t covered = 0;
    if (job.resume_from != nullptr) {
      done = *job.resume_from;
      any = true;
      covered = covered_count(done);
    }
    // The first chunk is one block of trajectories per thread: it measures the rate. Each later
    // chunk is what that rate per thread, over all chunks so far, gives for checkpoint_seconds of
    // work on the chunk's threads, and takes the rest of the gap when less than half a chunk
    // would be left. A chunk ends when its slowest block does, with the other cores idle, so a
    // job runs in as few chunks as its checkpoints need (more, smaller chunks measured slower).
    // A checkpoint is written once checkpoint_seconds have passed since the last (each is a few
    // MB with fsync).
    double thread_seconds = 0.0;          // wall seconds x threads of the chunks run so far
    std::int64_t chunk_trajectories = 0;  // and their trajectories
    auto last_checkpoint = Clock::now();
    bool unsaved = false;  // chunks merged into `done` since the last checkpoint
    for (const TrajectoryRange& gap : uncovered(done.ranges, n)) {
      for (std::int64_t begin = gap.begin; begin < gap.end;) {
        const int threads = chunk_threads();
        const int used = threads > 0 ? threads : cores();
        const std::int64_t chunk = chunk_trajectories == 0
                                       ? 8 * std::int64_t{used}
                                       : next_chunk(thread_seconds, chunk_trajectories, used);
        std::int64_t end = std::min(gap.end, begin + chunk);
        if (2 * (gap.end - end) < chunk) end = gap.end;
        RunOptions options;
        options.threads = threads;
        options.cancel = &job.halt;
        options.steps = job.steps;
        const std::int64_t base = covered * choices;
        if (job.progress) {
          options.progress = [&](std::int64_t chunk_done, std::int64_t) {
            job.progress(base + chunk_done, n * choices);
          };
        }
        const auto start = Clock::now();
        PartialResult part = run_partial(job.problem, {begin, end}, options);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        part.spec_hash = job.spec_hash;
        if (job.completed) job.completed(part);
        if (job.halt.load() && !job.cancel.load()) {
          // Shutdown: the interrupted chunk is dropped; the finished ones are kept.
          if (unsaved && job.checkpoint) job.checkpoint(done);
          throw Interrupted();
        }
        if (any) {
          merge_partial(done, part);
        } else {
          done = std::move(part);
          any = true;
        }
        covered += end - begin;
        unsaved = true;
        if (job.cancel.load()) return finish_cancelled(job.problem, std::move(done), threads_);
        if (job.checkpoint && covered < n &&
            std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >=
                checkpoint_seconds_) {
          job.checkpoint(done);
          last_checkpoint = Clock::now();
          unsaved = false;
        }
        thread_seconds += seconds * used;
        chunk_trajectories += end - begin;
        begin = end;
      }
    }
    return finish(job.problem, std::move(done), threads_);
  }

 private:
  /// A run to a requested precision (UntilSpec): the planned count from the pilot (rerun at
  /// every start, deterministic), then one round of kUntilRound trajectories at a time from the
  /// end of the checkpointed prefix, the targets checked after each from the planned count on,
  /// as run_ensemble() does, so the run stops at the same round however often it was restarted.
  EnsembleResult run_until(const JobRun& job) {
    const std::int64_t n = trajectory_count(job.problem.spec());
    const auto choices = choice_count(job.problem.spec());
    PartialResult done;
    done.spec_hash = job.spec_hash;
    if (job.resume_from != nullptr) done = *job.resume_from;
    std::int64_t m = done.ranges.empty() ? 0 : done.ranges[0].end;
    if (done.ranges.size() > 1 || (m > 0 && done.ranges[0].begin != 0) ||
        (m % kUntilRound != 0 && m != n)) {
      throw std::runtime_error(
          "the checkpoint of a run to a requested precision is not a "
          "prefix of whole rounds");
    }
    RunOptions pilot;
    pilot.threads = chunk_threads();
    pilot.cancel = &job.halt;
    const std::int64_t planned = until_planned_count(job.problem, pilot);
    if (job.halt.load()) {
      if (job.cancel.load()) return finish_cancelled(job.problem, std::move(done), threads_);
      throw Interrupted();  // the checkpoint, if any, is unchanged
    }
    if (m >= planned && until_reached(job.problem, done)) {
      return finish_until(job.problem, done, planned, threads_);
    }
    auto last_checkpoint = Clock::now();
    while (m < n) {
      const std::int64_t end = std::min(n, m + kUntilRound);
      RunOptions options;
      options.threads = chunk_threads();
      options.cancel = &job.halt;
      options.steps = job.steps;
      if (job.progress) {
        options.progress = [&, base = m * choices](std::int64_t d, std::int64_t) {
          job.progress(base + d, n * choices);
        };
      }
      PartialResult part = run_partial(job.problem, {m, end}, options);
      part.spec_hash = job.spec_hash;
      if (job.completed) job.completed(part);
      if (job.halt.load() && !job.cancel.load()) {
        if (m > 0 && job.checkpoint) job.checkpoint(done);
        throw Interrupted();
      }
      if (m == 0) {
        done = std::move(part);
      } else {
        merge_partial(done, part);
      }
      m = end;
      if (job.cancel.load()) return finish_cancelled(job.problem, std::move(done), threads_);
      if (m >= planned && until_reached(job.problem, done)) break;
      if (job.checkpoint && std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >=
                                checkpoint_seconds_) {
        job.checkpoint(done);
        last_checkpoint = Clock::now();
      }
    }
    return finish_until(job.problem, std::move(done), planned, threads_);
  }

  /// Trajectories for checkpoint_seconds of work on `threads` threads at the rate of
  /// `trajectories` in `thread_seconds` (wall seconds x threads); at least 8 (one lane batch),
  /// at most 2^40.
  std::int64_t next_chunk(double thread_seconds, std::int64_t trajectories, int threads) const {
    constexpr double kMin = 8.0, kMax = 1099511627776.0;
    const double rate =
        static_cast<double>(trajectories) * threads / std::max(thread_seconds, 1e-9);
    return static_cast<std::int64_t>(std::clamp(checkpoint_seconds_ * rate, kMin, kMax));
  }

  /// Counts a job in running_ while it runs.
  class RunningJob {
   public:
    explicit RunningJob(std::atomic<int>& running) : running_(running) { ++running_; }
    ~RunningJob() { --running_; }
    RunningJob(const RunningJob&) = delete;
    RunningJob& operator=(const RunningJob&) = delete;

   private:
    std::atomic<int>& running_;
  };

  /// The threads of a job's next chunk: its share of the threads of concurrent_jobs_ jobs
  /// (job_share_threads). The bits do not depend on it.
  /// At most the pool's current limit (another global_control in the process may lower it):
  /// an arena that asks for more makes oneTBB print a warning into the log.
  int chunk_threads() const {
    const int share = job_share_threads(threads_, concurrent_jobs_, running_.load());
    const auto limit = static_cast<int>(
        tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
    return share > 0 ? std::min(share, std::max(limit, 1)) : share;
  }

  static int cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

  /// oneTBB's max_allowed_parallelism (threads, the calling one included) for
  /// `concurrent_jobs` jobs of `threads` threads each, or one job of all their threads.
  static std::size_t worker_pool_size(int threads, int concurrent_jobs) {
    const int per_job = threads > 0 ? threads : cores();
    return static_cast<std::size_t>(std::max(1, concurrent_jobs) * per_job);
  }

  int threads_;
  double checkpoint_seconds_;
  int concurrent_jobs_;
  std::atomic<int> running_{0};  // jobs in run()
  tbb::global_control workers_;
  JobThreadPriority priority_;
};

}  // namespace

int job_share_threads(int threads, int concurrent_jobs, int running) {
  if (threads <= 0) return 0;  // every job has all cores already
  return threads * std::max(1, concurrent_jobs / std::max(1, running));
}

std::vector<TrajectoryRange> uncovered(const std::vector<TrajectoryRange>& covered,
                                       std::int64_t n) {
  std::vector<TrajectoryRange> gaps;
  std::int64_t next = 0;
  for (const TrajectoryRange& r : covered) {
    if (r.begin > next) gaps.push_back({next, r.begin});
    next = std::max(next, r.end);
  }
  if (next < n) gaps.push_back({next, n});
  return gaps;
}

std::unique_ptr<Executor> make_local_executor(int threads, double checkpoint_seconds,
                                              int concurrent_jobs) {
  return std::make_unique<LocalExecutor>(threads, checkpoint_seconds, concurrent_jobs);
}

}  // namespace nhsim::server

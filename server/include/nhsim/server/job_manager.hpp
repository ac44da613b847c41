// Runs submitted ensembles asynchronously: a queue and a few worker threads, each handing one
// job at a time to the executor (local: oneTBB in this process; slurm: a job array). Jobs
// running at once share oneTBB's worker pool (each runs in its own task arena), so a small job
// submitted behind a large one starts at once instead of waiting for it. The queue is shared
// fairly across identities: one identity runs at most max_running_per_client jobs at once, and
// the next job to run is the oldest queued job of the identity with the fewest running; a short
// job (short_job_steps) may take a free runner beyond its identity's cap. With a
// durable store, every job is stored before it is acknowledged, checkpointed while it runs,
// recovered at start and drained (not cancelled) at shutdown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/server/durable_store.hpp"
#include "nhsim/server/executor.hpp"
#include "nhsim/server/job_store.hpp"
#include "nhsim/server/metrics.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// How many times a job holds its per-trajectory outputs at its peak: the run's merged chunks
/// (with their vectors' growth), a checkpoint's message and bytes, the result's conversion and
/// serialisation. Measured: 1000 trajectories with their states at 2001 sample times (260 MiB of
/// values, 72 MiB of statistics) peaked at 1459 MiB in nhsimd (docs/operations.md).
inline constexpr double kOutputCopies = 5;

/// The memory a job is admitted with (--max-job-memory-mb): its statistics and its outputs'
/// copies (nhsim::CostEstimate; a planning figure, documented with its measured bound).
double job_memory_bytes(const nhsim::CostEstimate& cost);
/// The documented bound of a job's peak: this times its admitted memory (+ 64 MiB for the
/// process). A running job whose checkpoint alone grows beyond it is stopped.
inline constexpr double kMemoryBoundFactor = 1.5;

struct JobManagerOptions {
  int max_running_jobs = 4;  ///< jobs running at once (>= 1)
  /// Jobs of one owner running at once; 0: max_running_jobs - 1 (at least 1), so that one runner
  /// is always left for another identity's job.
  int max_running_per_client = 0;
  /// A short job (estimated trajectory-steps at most this; 0: none is short) may run while its
  /// owner is at max_running_per_client, on a runner that is free: one such job per owner at a
  /// time. So a small job starts at once behind its own identity's long ones, as behind others'.
  double short_job_steps = 1e7;
  int max_queued_jobs = 256;  ///< jobs waiting to run; submit beyond answers QueueFull (>= 1)
  /// Unfinished (queued + running) jobs of one owner; submit beyond answers QueueFull (>= 1).
  int max_jobs_per_client = 64;
  /// How long a finished job (and its result) is kept before it is evicted.
  std::chrono::seconds keep_finished_for{std::chrono::hours(24 * 7)};
  /// Finished jobs kept, per owner and in all, and the bytes of their results; beyond any of
  /// these the oldest finished jobs are evicted first, though each owner's newest finished job
  /// is always kept. 0: no limit.
  std::int64_t keep_finished_jobs_per_client = 1000;
  std::int64_t keep_finished_jobs = 10000;
  double keep_finished_mb_per_client = 4096;
  double keep_finished_mb = 16384;
};

/// Thrown by submit() when max_queued_jobs jobs are waiting, or the owner has
/// max_jobs_per_client unfinished jobs.
class QueueFull : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by submit() when the durable store cannot store the job (a full disk): UNAVAILABLE.
class StoreUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by submit() when the owner used the idempotency key for another spec.
class KeyReused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by the result reads when the job was evicted or deleted before the read began:
/// NOT_FOUND.
class JobGone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What remove() found. kBeingRead: a result read is in progress (eviction tries again later;
/// a DeleteJob removes it all the same).
enum class Removal { kRemoved, kNotFound, kNotFinished, kBeingRead };

/// Owns the job stores and the worker. A job accepted is a job answered: whatever the executor
/// does (returns, is cancelled, throws), the job ends in a terminal state, and every state
/// change is logged (one line) and counted in the metrics. Thread-safe.
class JobManager {
 public:
  /// Recovers the jobs of `durable` (if given: the unfinished ones are queued again, in their
  /// order, to resume from their last checkpoint) and starts the worker thread. `metrics` must
  /// outlive the manager. Without a durable store jobs live in memory only. Finished jobs are
  /// evicted `keep_finished_for` after they ended (checked about every tenth of that, at most
  /// every minute).
  JobManager(std::unique_ptr<Executor> executor, Metrics& metrics,
             std::unique_ptr<DurableStore> durable = nullptr, JobManagerOptions options = {});
  /// stop()s.
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  /// Queues `request`, whose checked core spec `problem` = Problem(wire::from_proto(request)) the
  /// caller has checked against the limits, as a job of `owner`; the job carries `problem` to its
  /// executor. Returns the new
  /// job, state QUEUED, with a fresh random id (128 bits from the OS CSPRNG, 32 hex digits).
  /// With a durable store the job is stored before this returns; throws StoreUnavailable if
  /// it cannot be, QueueFull when max_queued_jobs jobs wait already or `owner` has
  /// max_jobs_per_client unfinished jobs.
  ///
  /// With an idempotency key `request_key` (client-chosen), a submission whose key `owner` used
  /// before for a job still kept returns that job instead of queuing another (a client that
  /// retries a submit whose answer it lost gets the job it created); KeyReused when that job's
  /// spec differs.
  /// `memory_bytes` is the job's admitted memory estimate, for the log.
  nhsim::v1::Job submit(nhsim::v1::SubmitEnsembleRequest request, nhsim::Problem problem,
                        const std::string& owner, const std::string& request_key = "",
                        double memory_bytes = 0);

  /// Asks a job to stop: a queued job ends CANCELLED at once; a running job gets its cancel
  /// flag set and ends CANCELLED when the core returns (promptly); a finished job is left as
  /// it is. `by` names who asked, for the log. Returns the job after the request;
  /// std::nullopt for an unknown id.
  std::optional<nhsim::v1::Job> cancel(const std::string& id, const std::string& by = "server");

  /// Removes a finished job and its result (memory and durable store), or forgets a
  /// quarantined one. A job whose result is being read is kBeingRead (eviction tries again
  /// later) unless `while_read` (DeleteJob): then it goes at once, a read from memory ends as it
  /// began and a read from the durable store ends with ResultGone (NOT_FOUND) at its next batch.
  Removal remove(const std::string& id, bool while_read = false);

  /// The serialized EnsembleResult of a job that has one (record.has_result): from memory, or
  /// read from the durable store and checked against its checksum. Throws DamagedRecord when
  /// the stored result is damaged (gRPC DATA_LOSS), JobGone when the job was evicted or deleted
  /// meanwhile, std::runtime_error when it cannot be read. A job is not removed while it is read.
  std::shared_ptr<const std::string> read_result(const JobRecord& record);
  /// Calls `each` with consecutive pieces of at most `piece` bytes of the result and its total
  /// size (at least one call); a stored result is checked whole before the first piece. Stops
  /// when `each` returns false. Throws as read_result().
  void read_result_pieces(const JobRecord& record, std::size_t piece,
                          const std::function<bool(std::string_view, std::int64_t)>& each);
  /// A running job's statistics so far (GetResultRequest.partial): the serialized
  /// EnsembleResult of its latest checkpoint (finish_prefix; job_id and label set), computed
  /// at the first call after each checkpoint, one at a time, and kept until the next; null
  /// while it has none. Throws DamagedRecord when the stored checkpoint is damaged,
  /// PartialMismatch when it does not cover a first run of trajectories.
  std::shared_ptr<const std::string> snapshot(const JobRecord& record);
  /// The job, if its stored record was found damaged (it is answered with DATA_LOSS).
  std::optional<QuarantinedJob> quarantined(const std::string& id) const;
  /// Every quarantined job, in id order.
  std::vector<QuarantinedJob> quarantined_jobs() const;

  const JobStore& store() const { return store_; }
  /// The durable store, or null when jobs live in memory only.
  DurableStore* durable() const { return durable_.get(); }

  /// Why jobs cannot make progress now: the executor's problem, or the durable store's last
  /// write failed (each call then probes the store with a small write, and a success clears
  /// it); empty when all is well.
  std::string problem();
  /// Why the queued job `id` has not started (v1::Job.waiting_reason); empty when it is not
  /// queued.
  std::string waiting_reason(const std::string& id);
  /// How long the oldest job still queued has waited since its submission [s]; 0 with none.
  double oldest_queued_seconds();
  /// Why the executor cannot run `spec` (Executor::refuses); empty when it can.
  std::string refuses(const nhsim::EnsembleSpec& spec) const { return executor_->refuses(spec); }

  /// Stops: with a durable store, halts the running jobs (their last checkpoints stay) and leaves
  /// the queued ones queued, so all resume at the next start; without one, cancels every
  /// unfinished job. Waits for the worker to end and wakes all watchers. Idempotent. Jobs
  /// submitted afterwards are stored (durable) or cancelled, never run by this manager.
  void stop();

 private:
  /// A job waiting to run, and whose it is.
  struct Queued {
    std::string id;
    std::string owner;
    bool short_job = false;  ///< at most short_job_steps trajectory-steps
  };
  bool is_short(const Problem& problem) const;
  void recover();
  void work();
  /// The queued job to run next under the fair-share rule (queue_mutex_ held), or queue_.end()
  /// when every queued job's owner runs its cap already (one more for a short job).
  std::deque<Queued>::iterator next_to_run();
  int running_cap() const;
  /// Evicts finished jobs older than keep_finished_for, until stop().
  void reap();
  /// Evicts the oldest finished jobs beyond the count and byte limits; returns how many.
  int evict_beyond_limits();
  void run(const std::string& id);
  /// Reads a queued job's request from the durable store and checks its spec again (into
  /// `record` and the job store); throws DamagedRecord, SpecError, or Abandoned once the job's
  /// halt flag is set (a cancel or a shutdown) between two sweep cases.
  void load_spec(JobRecord& record);
  /// Ends a job that did not start: FAILED (its stored request is damaged or no longer valid)
  /// or CANCELLED while its spec was checked again.
  void end_unstarted(JobRecord& record, nhsim::v1::JobState state, const std::string& error);
  /// Writes through to the durable store, if any; logs (never throws) on failure.
  void persist(const char* what, const std::string& id, const std::function<void()>& write);

  std::unique_ptr<Executor> executor_;
  JobManagerOptions options_;
  Metrics& metrics_;
  std::unique_ptr<DurableStore> durable_;
  /// Registers a result read of job `id` for its lifetime; throws JobGone if it is gone.
  class Reading {
   public:
    Reading(JobManager& jobs, const std::string& id);
    ~Reading();
    Reading(const Reading&) = delete;
    Reading& operator=(const Reading&) = delete;

   private:
    JobManager& jobs_;
    std::string id_;
  };
  std::mutex readers_mutex_;
  std::map<std::string, int> readers_;  // result reads in progress per job; readers_mutex_
  mutable std::mutex quarantine_mutex_;
  std::map<std::string, QuarantinedJob> quarantine_;  // guarded by quarantine_mutex_
  /// The latest snapshot() of each running job that was asked for one, by checkpoint count.
  struct Snapshot {
    std::int64_t checkpoints = 0;
    std::shared_ptr<const std::string> result;
  };
  std::mutex snapshots_mutex_;  // held while one is computed
  std::map<std::string, Snapshot> snapshots_;
  std::mutex store_problem_mutex_;
  std::string store_problem_;  // the last failed write, until a write succeeds
  JobStore store_;
  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;   // wakes the workers
  std::condition_variable stop_requested_;  // wakes the reaper
  std::deque<Queued> queue_;                // in submission order
  bool stopping_ = false;
  std::map<std::string, std::string> running_;  // id -> owner of the jobs the workers run now
  // (owner, idempotency key) -> job id, for the jobs kept; guarded by queue_mutex_
  std::map<std::pair<std::string, std::string>, std::string> request_keys_;
  std::once_flag stopped_;
  std::uint64_t last_seq_ = 0;  // guarded by queue_mutex_ (and set by recover() before that)
  std::vector<std::thread> workers_;
  std::thread reaper_;
};

/// Calls `each` with consecutive pieces of at most `piece` bytes of `bytes` and its size (at
/// least one call, also for no bytes), until it returns false.
void for_each_piece(std::string_view bytes, std::size_t piece,
                    const std::function<bool(std::string_view, std::int64_t)>& each);

}  // namespace nhsim::server

// Runs submitted ensembles asynchronously: a FIFO queue and one worker thread that hands one job
// at a time to the executor (local: oneTBB in this process; slurm: a job array).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "nhsim/ensemble.hpp"
#include "nhsim/server/executor.hpp"
#include "nhsim/server/job_store.hpp"
#include "nhsim/server/metrics.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// Owns the job store and the worker. A job accepted is a job answered: whatever the core
/// does (returns, is cancelled, throws), the job ends in a terminal state, and every state
/// change is logged (one line) and counted in the metrics. Thread-safe.
class JobManager {
 public:
  /// Starts the worker thread. `metrics` must outlive the manager.
  JobManager(std::unique_ptr<Executor> executor, Metrics& metrics);
  /// stop()s.
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  /// Queues `request`, whose core spec `spec` = from_proto(request) the caller has validated
  /// (nhsim::validate) and checked against the limits. Returns the new job, state QUEUED, with
  /// a fresh random id (16 hex digits).
  nhsim::v1::Job submit(nhsim::v1::SubmitEnsembleRequest request, nhsim::EnsembleSpec spec);

  /// Asks a job to stop: a queued job ends CANCELLED at once; a running job gets its cancel
  /// flag set and ends CANCELLED when the core returns (promptly); a finished job is left as
  /// it is. Returns the job after the request; std::nullopt for an unknown id.
  std::optional<nhsim::v1::Job> cancel(const std::string& id);

  const JobStore& store() const { return store_; }

  /// Cancels every unfinished job, waits for the worker to end, and wakes all watchers.
  /// Idempotent. Jobs submitted afterwards are never run.
  void stop();

 private:
  void work();
  void run(const std::string& id);

  std::unique_ptr<Executor> executor_;
  Metrics& metrics_;
  JobStore store_;
  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  std::string running_;  // id of the job the worker runs now; guarded by queue_mutex_
  std::once_flag stopped_;
  std::mt19937_64 id_engine_;  // guarded by queue_mutex_
  std::thread worker_;
};

}  // namespace nhsim::server

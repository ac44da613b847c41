// Where a job's trajectories run (docs/design.md "Jobs and the service": executors). The job
// manager hands a running job to its executor and records what comes back; results do not depend on
// the executor, bit for bit.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// One job as an executor sees it. The references outlive Executor::run().
struct JobRun {
  const std::string& id;                            ///< job id (32 hex digits)
  const std::string& owner;                         ///< identity of the submitter, for logs
  const nhsim::v1::SubmitEnsembleRequest& request;  ///< as submitted (label included)
  const nhsim::Problem& problem;                    ///< wire::from_proto(request), checked
  const std::string& spec_hash;                     ///< wire::spec_sha256(request)
  const std::atomic<bool>& cancel;                  ///< set by CancelJob
  /// Set by CancelJob and at shutdown; an executor stops promptly when it is set.
  const std::atomic<bool>& halt;
  /// The statistics of the trajectories done before a restart (spec_hash set); null: none.
  const nhsim::PartialResult* resume_from;
  /// Trajectory-steps taken (RunOptions::steps), resume_from's included; may be null.
  std::atomic<std::int64_t>* steps;
  /// Trajectory runs finished and total (n_trajectories x choices); called from any thread.
  nhsim::ProgressFn progress;
  /// Called with the statistics of every trajectory done so far (including resume_from), at
  /// a bounded interval of work; the job manager stores it. May be empty.
  std::function<void(const nhsim::PartialResult&)> checkpoint;
  /// Called with the statistics of each chunk of trajectories as it completes (resume_from
  /// excluded), for the metrics. May be empty.
  std::function<void(const nhsim::PartialResult&)> completed;
};

/// Thrown by Executor::run() when `halt` was set by a shutdown (not a cancel): the job is
/// neither finished nor cancelled and resumes from its last checkpoint at the next start.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted by shutdown") {}
};

class Executor {
 public:
  virtual ~Executor() = default;
  /// Runs the job (the trajectories not covered by resume_from): returns its result, with
  /// result.cancelled and the trajectories not run counted as cancelled if `cancel` was set,
  /// promptly after it was. Throws Interrupted when halted by a shutdown, and another
  /// std::exception whose what() says why when the job cannot be completed (it then FAILS).
  virtual nhsim::EnsembleResult run(const JobRun& job) = 0;
  /// "local" or "slurm", for the log.
  virtual std::string name() const = 0;
  /// Why jobs cannot make progress now (e.g. the Slurm controller does not answer); empty when
  /// they can. Health checks answer NOT_SERVING while it is not empty. Called about once a
  /// second from one thread; must return within a few seconds.
  virtual std::string problem() { return {}; }
  /// Why this executor cannot run `spec` ("field: reason", as a SpecError's what()); empty when
  /// it can. The service refuses such a submission with INVALID_ARGUMENT.
  virtual std::string refuses(const nhsim::EnsembleSpec& /*spec*/) const { return {}; }
};

/// The nice value of the threads that compute jobs (the gRPC threads keep the process's).
inline constexpr int kJobThreadNice = 10;

/// Runs jobs in this process on `threads` oneTBB threads per job (0: all cores), in chunks of
/// trajectories of about `checkpoint_seconds` of work each (shorter at the start), with a
/// checkpoint after each chunk that ends `checkpoint_seconds` or more after the last one, and
/// one of the finished chunks when a shutdown interrupts the job. A chunk that starts while
/// fewer than `concurrent_jobs` jobs run takes a larger share (job_share_threads).
/// Allows oneTBB enough worker threads that each of `concurrent_jobs` jobs running at once
/// gets its `threads`: the operating system then shares the cores equally among the jobs
/// (with oneTBB's default pool, one worker per core beyond the first, two jobs on two cores
/// split 2:1 and a short job took 2.8 times its solo time). The threads that compute jobs run
/// at nice kJobThreadNice, below the gRPC threads that answer health checks and RPCs.
std::unique_ptr<Executor> make_local_executor(int threads, double checkpoint_seconds = 5.0,
                                              int concurrent_jobs = 1);

/// The oneTBB threads of a job's next chunk when `running` jobs (this one included) run on a
/// pool sized for `concurrent_jobs` jobs of `threads` threads each: threads x
/// floor(concurrent_jobs / running), at least `threads`; 0 (all cores) for threads = 0. A job
/// running alone gets every job's threads (one identity then uses the whole machine).
int job_share_threads(int threads, int concurrent_jobs, int running);

/// The trajectory ranges of [0, n) that `covered` (sorted, disjoint) leaves out.
std::vector<nhsim::TrajectoryRange> uncovered(const std::vector<nhsim::TrajectoryRange>& covered,
                                              std::int64_t n);

}  // namespace nhsim::server

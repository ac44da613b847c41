// Where a job's trajectories run (DESIGN.md "Jobs and the service": executors). The job manager
// hands a running job to its executor and records what comes back; results do not depend on
// the executor, bit for bit.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// One job as an executor sees it. The references outlive Executor::run().
struct JobRun {
  const std::string& id;                            ///< job id (16 hex digits)
  const nhsim::v1::SubmitEnsembleRequest& request;  ///< as submitted (label included)
  const nhsim::EnsembleSpec& spec;                  ///< from_proto(request), validated
  const std::atomic<bool>& cancel;                  ///< set by CancelJob and at shutdown
  /// Trajectory runs finished and total (n_trajectories x choices); called from any thread.
  nhsim::ProgressFn progress;
};

class Executor {
 public:
  virtual ~Executor() = default;
  /// Runs the job: returns its result, with result.cancelled and the trajectories not run
  /// counted as cancelled if `cancel` was set, promptly after it was. Throws std::exception
  /// whose what() says why when the job cannot be completed; the job then ends FAILED.
  virtual nhsim::EnsembleResult run(const JobRun& job) = 0;
  /// "local" or "slurm", for the log.
  virtual std::string name() const = 0;
};

/// Runs jobs in this process on `threads` oneTBB threads (0: all cores).
std::unique_ptr<Executor> make_local_executor(int threads);

}  // namespace nhsim::server

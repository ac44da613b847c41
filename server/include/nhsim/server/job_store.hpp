// The live job table: jobs, their progress and results, in memory, each with a version that
// WatchJob's notifier compares (watch_hub.hpp). The job manager writes every change that must
// survive a crash through to the DurableStore (durable_store.hpp) and rebuilds this table from it
// at start; it evicts finished jobs after the retention period.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// True for SUCCEEDED, FAILED and CANCELLED.
bool is_terminal(nhsim::v1::JobState state);

/// Upper-case name of a state without prefix, e.g. "RUNNING".
std::string state_name(nhsim::v1::JobState state);

/// The name ListJobs shows for the request's system: the catalogue's or registered name, the
/// custom system's name, or "custom_system".
std::string system_name(const nhsim::v1::SubmitEnsembleRequest& request);

/// Everything the server knows about one job. Copies are cheap: the spec and the result are
/// shared and immutable. A finished job keeps neither its request nor its problem.
struct JobRecord {
  std::string id;
  std::uint64_t seq = 0;  ///< submission order (recovered jobs keep theirs); list() sorts by it
  /// The identity that submitted the job (wire::Caller::identity); only it and admins see the job.
  std::string owner;
  std::string label;
  std::shared_ptr<const nhsim::Problem> problem;  ///< the spec, checked once at submission
  std::shared_ptr<const nhsim::v1::SubmitEnsembleRequest> request;  ///< as submitted
  /// wire::spec_sha256 of the request; empty for a recovered finished job without request_key
  std::string spec_hash;
  std::string request_key;  ///< the client's idempotency key; empty: none
  nhsim::v1::JobState state = nhsim::v1::QUEUED;
  std::int64_t trajectories_done = 0;   ///< ok + failed, over all integrator choices
  std::int64_t trajectories_total = 0;  ///< initial conditions x integrator choices
  /// Trajectory-steps taken while running (RunOptions::steps); to_job() shows steps_total once
  /// the job has ended.
  std::shared_ptr<std::atomic<std::int64_t>> steps_done =
      std::make_shared<std::atomic<std::int64_t>>(0);
  std::int64_t steps_total = 0;  ///< CostEstimate::trajectory_steps
  /// The memory the job was admitted with (job_memory_bytes), bytes: a running job whose
  /// checkpoint grows beyond kMemoryBoundFactor times it is stopped (FAILED,
  /// "RESOURCE_EXHAUSTED: ..."); 0: unchecked.
  double memory_bytes = 0;
  std::string error;  ///< why the job FAILED
  /// Set by CancelJob (and, without a durable store, at shutdown).
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  /// The flag handed to the core (RunOptions::cancel): set with `cancel`, and at shutdown.
  std::shared_ptr<std::atomic<bool>> halt = std::make_shared<std::atomic<bool>>(false);
  /// The checkpoint a recovered job resumes from; null for a fresh job.
  std::shared_ptr<const nhsim::PartialResult> resume_from;
  std::chrono::system_clock::time_point created_time{};   ///< epoch = unset
  std::chrono::system_clock::time_point started_time{};   ///< epoch = unset
  std::chrono::system_clock::time_point finished_time{};  ///< epoch = unset
  std::string system;  ///< the system's name (a registered or custom one's, "custom_system")
  /// The executor returned a result (an EnsembleResult, job_id and label filled in).
  bool has_result = false;
  std::int64_t result_size = 0;  ///< bytes of the serialized result (retention counts them)
  /// The serialized result while it is held in memory: always without a durable store; with
  /// one, only until it is stored (JobManager::read_result then reads it from the store).
  std::shared_ptr<const std::string> result;
  /// Without a durable store: the serialized PartialResult of the running job's latest
  /// checkpoint, for GetResultRequest.partial (a durable store holds it instead).
  std::shared_ptr<const std::string> checkpoint;
  std::int64_t checkpoints = 0;  ///< checkpoints written in this run (JobManager::snapshot)
  std::uint64_t version = 0;     ///< bumped by every update; lets watchers see changes
};

/// The wire view of a record.
nhsim::v1::Job to_job(const JobRecord& record);

/// In-memory, thread-safe map from job id to JobRecord, with change notification.
class JobStore {
 public:
  /// Adds a new record (its version becomes 1). Throws std::invalid_argument when the id is
  /// already taken.
  void insert(JobRecord record);

  /// A copy of the record; std::nullopt for an unknown id.
  std::optional<JobRecord> get(const std::string& id) const;

  /// What a watcher compares to see whether a record changed: its version and its steps.
  struct Stamp {
    std::uint64_t version = 0;
    std::int64_t steps_done = 0;
    bool operator==(const Stamp&) const = default;
  };
  /// The record's stamp, without copying it; std::nullopt for an unknown id.
  std::optional<Stamp> stamp(const std::string& id) const;

  /// Applies `change` to the record under the store's lock and bumps its version. `change` must be
  /// quick and must not call back into the store. Returns false for an unknown id (then `change` is
  /// not called).
  bool update(const std::string& id, const std::function<void(JobRecord&)>& change);

  /// Removes the record; false for an unknown id.
  bool erase(const std::string& id);

  /// Copies of the records in submission order (seq).
  std::vector<JobRecord> list() const;

  /// How many records satisfy `predicate` (called under the store's lock: quick, no callbacks
  /// into the store).
  std::int64_t count_if(const std::function<bool(const JobRecord&)>& predicate) const;

  /// Marks the store shut down (watches then end UNAVAILABLE). Idempotent.
  void shutdown();
  bool is_shut_down() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, JobRecord> jobs_;
  bool shut_down_ = false;
};

}  // namespace nhsim::server

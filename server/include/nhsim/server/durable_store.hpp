// The durable half of the job store: every job's spec, state, latest checkpoint (a partial
// result) and final result in an embedded SQLite database in WAL mode (docs/design.md "Jobs and the
// service": a job accepted is a job answered, even across a crash). Written through by the job
// manager; read once, at start, to recover. Thread-safe.
#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::server {

/// One job as stored. Times are milliseconds since the Unix epoch (0 = unset); the blobs are
/// binary protobuf (request: SubmitEnsembleRequest; checkpoint: PartialResult; result:
/// EnsembleResult with job_id and label set), empty when absent.
struct StoredJob {
  std::string id;
  std::string owner;  ///< the submitter's identity
  nhsim::v1::JobState state = nhsim::v1::QUEUED;
  std::string request;
  std::int64_t created_ms = 0, started_ms = 0, finished_ms = 0;
  std::int64_t trajectories_done = 0, trajectories_total = 0;
  bool cancel_requested = false;
  std::string error;
  std::string checkpoint;
  std::string result;
};

/// A user-defined system registered under a name by its owner (RegisterSystem).
struct StoredSystem {
  std::string owner;
  std::string name;
  std::string definition;  ///< binary nhsim.v1.CustomSystem
  std::string description;
  std::int64_t created_ms = 0;
};

class DurableStore {
 public:
  /// The schema this build writes (PRAGMA user_version); older databases are migrated on open.
  static constexpr int kSchemaVersion = 3;

  /// Opens (creating it if needed) `data_dir`/nhsimd.sqlite3 in WAL mode with synchronous=FULL
  /// (a commit is on disk before the call returns), migrates it to kSchemaVersion and takes an
  /// exclusive lock on `data_dir`/lock for the life of the object. Throws std::runtime_error
  /// naming the path when the directory cannot be created, the database cannot be opened, its
  /// schema is newer than this build's, or another nhsimd holds the lock.
  explicit DurableStore(const std::filesystem::path& data_dir);
  ~DurableStore();
  DurableStore(const DurableStore&) = delete;
  DurableStore& operator=(const DurableStore&) = delete;

  /// Every stored job, oldest first.
  std::vector<StoredJob> load() const;

  /// Adds a job (committed on return). Throws std::runtime_error (SQLite's message) on failure.
  void insert(const StoredJob& job);
  /// The job started (or resumed) running.
  void set_running(const std::string& id, std::int64_t started_ms);
  /// CancelJob reached the running job (a restart then finishes it as cancelled).
  void set_cancel_requested(const std::string& id);
  /// Replaces the job's checkpoint (a PartialResult of the trajectories done).
  void save_checkpoint(const std::string& id, const std::string& checkpoint,
                       std::int64_t trajectories_done);
  /// The job ended: its terminal state, error, result (may be empty) and counts; the
  /// checkpoint is dropped.
  void finish(const StoredJob& job);

  /// Removes the job (a finished one, evicted or deleted).
  void erase(const std::string& id);

  /// Every registered system, by owner and name.
  std::vector<StoredSystem> load_systems() const;
  /// Adds a registered system (committed on return); std::runtime_error when the owner has one
  /// of that name or SQLite fails.
  void insert_system(const StoredSystem& system);
  /// Removes the owner's system of that name (nothing when there is none).
  void erase_system(const std::string& owner, const std::string& name);

  const std::filesystem::path& path() const { return path_; }

 private:
  void migrate();

  std::filesystem::path path_;
  int lock_fd_ = -1;
  mutable std::mutex mutex_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace nhsim::server

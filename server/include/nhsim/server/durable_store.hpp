// The durable half of the job store: every job's spec, state, latest checkpoint (a partial
// result) and final result in an embedded SQLite database in WAL mode (docs/design.md "Jobs and the
// service": a job accepted is a job answered, even across a crash). Written through by the job
// manager; its index read at start to recover, results read when asked for. Damage is detected
// and named, never served: every blob carries its SHA-256, the database is checked at open
// (PRAGMA integrity_check; a damaged one is set aside and what is intact copied into a new one,
// the rest quarantined), and a directory that held a store refuses an empty or different
// database (the store id in `data_dir`/store-id). Thread-safe.
#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nhsim/v1/ensemble.pb.h"

struct sqlite3_blob;  // sqlite3.h

namespace nhsim::server {

/// One job as stored. Times are milliseconds since the Unix epoch (0 = unset); the blobs are
/// binary protobuf (request: SubmitEnsembleRequest; checkpoint: PartialResult; result:
/// EnsembleResult with job_id and label set), empty when absent. load() leaves `result` empty
/// (read_result() reads it) and a checkpoint whose checksum fails empty too.
struct StoredJob {
  std::string id;
  std::string owner;  ///< the submitter's identity
  nhsim::v1::JobState state = nhsim::v1::QUEUED;
  std::string request;
  std::int64_t created_ms = 0, started_ms = 0, finished_ms = 0;
  std::int64_t trajectories_done = 0, trajectories_total = 0;
  std::int64_t steps_total = 0;  ///< Job.steps_total (0 for a job stored before schema 5)
  bool cancel_requested = false;
  std::string error;
  std::string checkpoint;
  std::string result;
  std::int64_t result_bytes = 0;  ///< size of the stored result (0: none)
  std::string request_key;        ///< the client's idempotency key (empty: none)
  /// load(): why the stored request cannot be trusted (its checksum fails); empty when intact.
  std::string damage;
};

/// A job whose stored record is damaged: it is answered with DATA_LOSS until deleted.
struct QuarantinedJob {
  std::string id;
  std::string owner;   ///< empty when the damage took it
  std::string reason;  ///< e.g. "its stored result is damaged"
  std::int64_t found_ms = 0;
};

/// A stored record failed its checksum or could not be read: gRPC DATA_LOSS.
class DamagedRecord : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by the result reads when the job is not stored, or was deleted while its result was
/// being read: gRPC NOT_FOUND.
class ResultGone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DurableStoreOptions {
  /// Take an empty or different database in a directory whose store-id names another store
  /// (nhsimd --accept-new-store), instead of refusing to start.
  bool accept_new_store = false;
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
  static constexpr int kSchemaVersion = 5;

  /// Opens (creating it if needed) `data_dir`/nhsimd.sqlite3 in WAL mode with synchronous=FULL
  /// (a commit is on disk before the call returns), checks it (integrity_check; a damaged one is
  /// salvaged, see the file comment), migrates it to kSchemaVersion and takes an exclusive lock
  /// on `data_dir`/lock for the life of the object. Throws std::runtime_error naming the path
  /// when the directory cannot be created, the database cannot be opened, its schema is newer
  /// than this build's, another nhsimd holds the lock, or the directory's store-id names a store
  /// that this database is not (unless options.accept_new_store).
  explicit DurableStore(const std::filesystem::path& data_dir, DurableStoreOptions options = {});
  ~DurableStore();
  DurableStore(const DurableStore&) = delete;
  DurableStore& operator=(const DurableStore&) = delete;

  /// Every stored job, oldest first, without results (one at a time: a restart holds one
  /// request in memory, not all of them). `each` runs under the store's lock: it must not call
  /// back into the store.
  void load(const std::function<void(StoredJob&&)>& each) const;
  /// Every stored job, oldest first, without results.
  std::vector<StoredJob> load() const;
  /// Every quarantined job.
  std::vector<QuarantinedJob> load_quarantine() const;
  /// Moves the job out of the jobs table into the quarantine (committed on return).
  void quarantine(const QuarantinedJob& job);
  /// Forgets a quarantined job (DeleteJob).
  void erase_quarantined(const std::string& id);

  /// The job's stored result, checked against its checksum. Throws DamagedRecord when it does
  /// not match or cannot be read, std::runtime_error when the job has no result.
  std::string read_result(const std::string& id) const;
  /// Calls `each` with consecutive pieces of at most `piece` bytes of the job's result and its
  /// total size, after checking the whole result against its checksum; holds one batch of
  /// max(kResultBatch, piece) bytes in memory, and no read transaction while `each` runs (a
  /// caller that blocks does not pin the WAL). Stops early when `each` returns false. Throws
  /// as read_result(), and std::runtime_error when the job is deleted part-way.
  static constexpr std::int64_t kResultBatch = std::int64_t{2} << 20;
  void read_result_pieces(const std::string& id, std::size_t piece,
                          const std::function<bool(std::string_view, std::int64_t)>& each) const;
  /// The job `owner` submitted with idempotency key `key`; empty when there is none.
  std::string find_request_key(const std::string& owner, const std::string& key) const;

  /// Adds a job (committed on return). Throws std::runtime_error (SQLite's message) on failure.
  void insert(const StoredJob& job);
  /// The job started (or resumed) running.
  void set_running(const std::string& id, std::int64_t started_ms);
  /// CancelJob reached the running job (a restart then finishes it as cancelled).
  void set_cancel_requested(const std::string& id);
  /// The job's stored request (a serialized SubmitEnsembleRequest), checked against its
  /// checksum: a queued job's request lives here, not in memory. Throws DamagedRecord when the
  /// checksum fails, std::runtime_error when the job is not stored.
  std::string read_request(const std::string& id) const;
  /// The job's latest checkpoint (a serialized PartialResult); empty when it has none. Throws
  /// DamagedRecord when its checksum fails.
  std::string read_checkpoint(const std::string& id) const;
  /// Replaces the job's checkpoint (a PartialResult of the trajectories done).
  void save_checkpoint(const std::string& id, const std::string& checkpoint,
                       std::int64_t trajectories_done);
  /// The job ended: its terminal state, error, result (may be empty) and counts; the
  /// checkpoint is dropped.
  void finish(const StoredJob& job);

  /// Removes the job (a finished one, evicted or deleted).
  void erase(const std::string& id);

  /// Whether the store takes a write now (a small one, in the meta table); never throws.
  bool probe();

  /// Every registered system, by owner and name.
  std::vector<StoredSystem> load_systems() const;
  /// Adds a registered system (committed on return); std::runtime_error when the owner has one
  /// of that name or SQLite fails.
  void insert_system(const StoredSystem& system);
  /// Removes the owner's system of that name (nothing when there is none).
  void erase_system(const std::string& owner, const std::string& name);

  const std::filesystem::path& path() const { return path_; }

 private:
  void open_database();
  void migrate();
  /// open_database() and check_integrity(); a database SQLite finds malformed as it opens (a
  /// truncated file: its header counts pages the file lacks) is salvaged the same way
  /// (store_recovery.cpp).
  void open_checked();
  /// integrity_check; on failure, sets the database aside and salvages it (store_recovery.cpp).
  void check_integrity();
  void salvage(const std::string& report);
  /// Compares the database's store id with `data_dir`/store-id (store_recovery.cpp).
  void check_store_id(bool accept_new_store);
  /// The rowid, size and checksum of the job's result; throws as read_result().
  struct ResultLocation {
    std::int64_t rowid = 0, bytes = 0;
    std::string sha256;
  };
  ResultLocation locate_result(const std::string& id) const;
  /// An incremental-read handle on the result at `where` (mutex_ held); throws DamagedRecord
  /// when it cannot be opened or its size is not the record's.
  sqlite3_blob* open_result(const std::string& id, const ResultLocation& where) const;

  std::filesystem::path data_dir_;
  std::filesystem::path path_;
  int lock_fd_ = -1;
  mutable std::mutex mutex_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace nhsim::server

// SQLite through SQLiteCpp: one connection, serialised by a mutex; WAL + synchronous=FULL.
#include "nhsim/server/durable_store.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace nhsim::server {
namespace {

/// Migration k brings the schema from version k to k + 1.
constexpr const char* kMigrations[] = {
    R"sql(
    CREATE TABLE jobs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      state INTEGER NOT NULL,
      request BLOB NOT NULL,
      created_ms INTEGER NOT NULL,
      started_ms INTEGER NOT NULL DEFAULT 0,
      finished_ms INTEGER NOT NULL DEFAULT 0,
      trajectories_done INTEGER NOT NULL DEFAULT 0,
      trajectories_total INTEGER NOT NULL,
      cancel_requested INTEGER NOT NULL DEFAULT 0,
      error TEXT NOT NULL DEFAULT '',
      checkpoint BLOB,
      result BLOB
    );
    )sql",
    // Jobs belong to their submitter; jobs stored before (no authentication then) to the
    // anonymous identity.
    R"sql(
    ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT 'anonymous';
    )sql",
    // User-defined systems registered under a name, per owner (RegisterSystem).
    R"sql(
    CREATE TABLE systems (
      owner TEXT NOT NULL,
      name TEXT NOT NULL,
      definition BLOB NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      created_ms INTEGER NOT NULL,
      PRIMARY KEY (owner, name)
    );
    )sql",
};
static_assert(std::size(kMigrations) == DurableStore::kSchemaVersion);

std::string blob(const SQLite::Column& column) {
  if (column.isNull()) return {};
  return std::string(static_cast<const char*>(column.getBlob()),
                     static_cast<std::size_t>(column.getBytes()));
}

}  // namespace

DurableStore::DurableStore(const std::filesystem::path& data_dir)
    : path_(data_dir / "nhsimd.sqlite3") {
  // Jobs, results and identities are the owner's: a directory this server creates is 0700, and
  // the database (with its WAL and shared-memory files, which SQLite creates with the database's
  // mode) 0600. A directory the operator made is left as it is.
  namespace fs = std::filesystem;
  std::error_code error;
  const bool created = fs::create_directories(data_dir, error);
  if (!error && created) fs::permissions(data_dir, fs::perms::owner_all, error);
  if (error) {
    throw std::runtime_error("--data-dir " + data_dir.string() + ": " + error.message());
  }
  const std::string lock = (data_dir / "lock").string();
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) throw std::runtime_error(lock + ": " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    throw std::runtime_error("--data-dir " + data_dir.string() + " is in use by another nhsimd (" +
                             lock + " is locked)");
  }
  try {
    db_ = std::make_unique<SQLite::Database>(path_.string(),
                                             SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write, error);
    if (error) throw std::runtime_error(path_.string() + ": " + error.message());
    db_->exec("PRAGMA journal_mode = WAL");
    db_->exec("PRAGMA synchronous = FULL");
    db_->setBusyTimeout(5000);
    migrate();
  } catch (const SQLite::Exception& e) {
    ::close(lock_fd_);
    throw std::runtime_error(path_.string() + ": " + e.what());
  }
}

DurableStore::~DurableStore() {
  db_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

void DurableStore::migrate() {
  const int version = db_->execAndGet("PRAGMA user_version").getInt();
  if (version > kSchemaVersion) {
    throw std::runtime_error("schema version " + std::to_string(version) +
                             " is newer than this nhsimd's " + std::to_string(kSchemaVersion));
  }
  for (int v = version; v < kSchemaVersion; ++v) {
    SQLite::Transaction transaction(*db_);
    db_->exec(kMigrations[v]);
    db_->exec("PRAGMA user_version = " + std::to_string(v + 1));
    transaction.commit();
  }
}

std::vector<StoredJob> DurableStore::load() const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_,
                          "SELECT id, state, request, created_ms, started_ms, finished_ms, "
                          "trajectories_done, trajectories_total, cancel_requested, error, "
                          "checkpoint, result, owner FROM jobs ORDER BY seq");
  std::vector<StoredJob> jobs;
  while (query.executeStep()) {
    StoredJob job;
    job.id = query.getColumn(0).getString();
    job.state = static_cast<v1::JobState>(query.getColumn(1).getInt());
    job.request = blob(query.getColumn(2));
    job.created_ms = query.getColumn(3).getInt64();
    job.started_ms = query.getColumn(4).getInt64();
    job.finished_ms = query.getColumn(5).getInt64();
    job.trajectories_done = query.getColumn(6).getInt64();
    job.trajectories_total = query.getColumn(7).getInt64();
    job.cancel_requested = query.getColumn(8).getInt() != 0;
    job.error = query.getColumn(9).getString();
    job.checkpoint = blob(query.getColumn(10));
    job.result = blob(query.getColumn(11));
    job.owner = query.getColumn(12).getString();
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void DurableStore::insert(const StoredJob& job) {
  const std::lock_guard lock(mutex_);
  try {
    SQLite::Statement insert(*db_,
                             "INSERT INTO jobs (id, state, request, created_ms, finished_ms, "
                             "trajectories_total, cancel_requested, owner) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, job.id);
    insert.bind(2, static_cast<int>(job.state));
    insert.bind(3, job.request.data(), static_cast<int>(job.request.size()));
    insert.bind(4, job.created_ms);
    insert.bind(5, job.finished_ms);
    insert.bind(6, job.trajectories_total);
    insert.bind(7, job.cancel_requested ? 1 : 0);
    insert.bind(8, job.owner);
    insert.exec();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(path_.string() + ": cannot store job " + job.id + ": " + e.what());
  }
}

void DurableStore::set_running(const std::string& id, std::int64_t started_ms) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement update(*db_, "UPDATE jobs SET state = ?, started_ms = ? WHERE id = ?");
  update.bind(1, static_cast<int>(v1::RUNNING));
  update.bind(2, started_ms);
  update.bind(3, id);
  update.exec();
}

void DurableStore::erase(const std::string& id) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement remove(*db_, "DELETE FROM jobs WHERE id = ?");
  remove.bind(1, id);
  remove.exec();
}

void DurableStore::set_cancel_requested(const std::string& id) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement update(*db_, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?");
  update.bind(1, id);
  update.exec();
}

void DurableStore::save_checkpoint(const std::string& id, const std::string& checkpoint,
                                   std::int64_t trajectories_done) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement update(*db_,
                           "UPDATE jobs SET checkpoint = ?, trajectories_done = ? WHERE id = ?");
  update.bind(1, checkpoint.data(), static_cast<int>(checkpoint.size()));
  update.bind(2, trajectories_done);
  update.bind(3, id);
  update.exec();
}

void DurableStore::finish(const StoredJob& job) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement update(*db_,
                           "UPDATE jobs SET state = ?, finished_ms = ?, error = ?, result = ?, "
                           "trajectories_done = ?, cancel_requested = ?, checkpoint = NULL "
                           "WHERE id = ?");
  update.bind(1, static_cast<int>(job.state));
  update.bind(2, job.finished_ms);
  update.bind(3, job.error);
  if (job.result.empty()) {
    update.bind(4);
  } else {
    update.bind(4, job.result.data(), static_cast<int>(job.result.size()));
  }
  update.bind(5, job.trajectories_done);
  update.bind(6, job.cancel_requested ? 1 : 0);
  update.bind(7, job.id);
  update.exec();
}

std::vector<StoredSystem> DurableStore::load_systems() const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_,
                          "SELECT owner, name, definition, description, created_ms FROM systems "
                          "ORDER BY owner, name");
  std::vector<StoredSystem> out;
  while (query.executeStep()) {
    out.push_back(StoredSystem{query.getColumn(0).getString(), query.getColumn(1).getString(),
                               blob(query.getColumn(2)), query.getColumn(3).getString(),
                               query.getColumn(4).getInt64()});
  }
  return out;
}

void DurableStore::insert_system(const StoredSystem& system) {
  const std::lock_guard lock(mutex_);
  try {
    SQLite::Statement insert(*db_,
                             "INSERT INTO systems (owner, name, definition, description, "
                             "created_ms) VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, system.owner);
    insert.bind(2, system.name);
    insert.bind(3, system.definition.data(), static_cast<int>(system.definition.size()));
    insert.bind(4, system.description);
    insert.bind(5, system.created_ms);
    insert.exec();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(path_.string() + ": cannot store system " + system.name + ": " +
                             e.what());
  }
}

void DurableStore::erase_system(const std::string& owner, const std::string& name) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement erase(*db_, "DELETE FROM systems WHERE owner = ? AND name = ?");
  erase.bind(1, owner);
  erase.bind(2, name);
  erase.exec();
}

}  // namespace nhsim::server

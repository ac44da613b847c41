// SQLite through SQLiteCpp: one connection, serialised by a mutex; WAL + synchronous=FULL.
#include "nhsim/server/durable_store.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "nhsim/wire/spec_hash.hpp"

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
    // Damage is detected: a SHA-256 per blob (the C++ part of the migration fills them in for
    // the stored rows), a second copy of the job ids on other pages (a salvage finds the ids of
    // rows it cannot read), the quarantine, and the store's id. Idempotency keys per owner.
    R"sql(
    ALTER TABLE jobs ADD COLUMN request_sha256 TEXT;
    ALTER TABLE jobs ADD COLUMN checkpoint_sha256 TEXT;
    ALTER TABLE jobs ADD COLUMN result_sha256 TEXT;
    ALTER TABLE jobs ADD COLUMN result_bytes INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN request_key TEXT;
    CREATE UNIQUE INDEX jobs_request_key ON jobs (owner, request_key)
      WHERE request_key IS NOT NULL;
    CREATE TABLE job_ids (id TEXT PRIMARY KEY, owner TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO job_ids (id, owner) SELECT id, owner FROM jobs;
    CREATE TABLE quarantine (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      reason TEXT NOT NULL,
      found_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    )sql",
    // Progress in trajectory-steps (Job.steps_total); 0 for the jobs stored before.
    R"sql(
    ALTER TABLE jobs ADD COLUMN steps_total INTEGER NOT NULL DEFAULT 0;
    )sql",
};
static_assert(std::size(kMigrations) == DurableStore::kSchemaVersion);

std::string blob(const SQLite::Column& column) {
  if (column.isNull()) return {};
  return std::string(static_cast<const char*>(column.getBlob()),
                     static_cast<std::size_t>(column.getBytes()));
}

/// The checksum column's value for a blob: NULL for an absent one.
void bind_sha256(SQLite::Statement& statement, int index, const std::string& bytes) {
  if (bytes.empty()) {
    statement.bind(index);
  } else {
    statement.bind(index, wire::sha256_hex(bytes));
  }
}

void bind_blob(SQLite::Statement& statement, int index, const std::string& bytes) {
  if (bytes.empty()) {
    statement.bind(index);
  } else {
    statement.bind(index, bytes.data(), static_cast<int>(bytes.size()));
  }
}

/// True when the stored checksum `sha256` (NULL: stored before checksums) matches `bytes`.
bool intact(const SQLite::Column& sha256, const std::string& bytes) {
  return sha256.isNull() || sha256.getString() == wire::sha256_hex(bytes);
}

/// Fills in the checksums of the rows stored before schema 4.
void add_checksums(SQLite::Database& db) {
  SQLite::Statement rows(db, "SELECT id, request, checkpoint, result FROM jobs");
  SQLite::Statement update(db,
                           "UPDATE jobs SET request_sha256 = ?, checkpoint_sha256 = ?, "
                           "result_sha256 = ?, result_bytes = ? WHERE id = ?");
  while (rows.executeStep()) {
    const std::string result = blob(rows.getColumn(3));
    bind_sha256(update, 1, blob(rows.getColumn(1)));
    bind_sha256(update, 2, blob(rows.getColumn(2)));
    bind_sha256(update, 3, result);
    update.bind(4, static_cast<std::int64_t>(result.size()));
    update.bind(5, rows.getColumn(0).getString());
    update.exec();
    update.reset();
  }
}

}  // namespace

DurableStore::DurableStore(const std::filesystem::path& data_dir, DurableStoreOptions options)
    : data_dir_(data_dir), path_(data_dir / "nhsimd.sqlite3") {
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
    open_checked();
    migrate();
    check_store_id(options.accept_new_store);
  } catch (const SQLite::Exception& e) {
    db_.reset();
    ::close(lock_fd_);
    throw std::runtime_error(path_.string() + ": " + e.what());
  } catch (...) {
    db_.reset();
    ::close(lock_fd_);
    throw;
  }
}

void DurableStore::open_database() {
  namespace fs = std::filesystem;
  db_ = std::make_unique<SQLite::Database>(path_.string(),
                                           SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  std::error_code error;
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write, error);
  if (error) throw std::runtime_error(path_.string() + ": " + error.message());
  db_->exec("PRAGMA journal_mode = WAL");
  db_->exec("PRAGMA synchronous = FULL");
  db_->setBusyTimeout(5000);
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
    if (v == 3) add_checksums(*db_);
    db_->exec("PRAGMA user_version = " + std::to_string(v + 1));
    transaction.commit();
  }
}

void DurableStore::load(const std::function<void(StoredJob&&)>& each) const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_,
                          "SELECT id, state, request, created_ms, started_ms, finished_ms, "
                          "trajectories_done, trajectories_total, cancel_requested, error, "
                          "checkpoint, owner, request_sha256, checkpoint_sha256, result_bytes, "
                          "request_key, steps_total FROM jobs ORDER BY seq");
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
    job.owner = query.getColumn(11).getString();
    if (!intact(query.getColumn(12), job.request)) job.damage = "its stored request is damaged";
    if (!intact(query.getColumn(13), job.checkpoint)) job.checkpoint.clear();  // only a head start
    job.result_bytes = query.getColumn(14).getInt64();
    if (!query.getColumn(15).isNull()) job.request_key = query.getColumn(15).getString();
    job.steps_total = query.getColumn(16).getInt64();
    each(std::move(job));
  }
}

std::vector<StoredJob> DurableStore::load() const {
  std::vector<StoredJob> jobs;
  load([&](StoredJob&& job) { jobs.push_back(std::move(job)); });
  return jobs;
}

std::vector<QuarantinedJob> DurableStore::load_quarantine() const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_, "SELECT id, owner, reason, found_ms FROM quarantine ORDER BY id");
  std::vector<QuarantinedJob> jobs;
  while (query.executeStep()) {
    jobs.push_back({query.getColumn(0).getString(), query.getColumn(1).getString(),
                    query.getColumn(2).getString(), query.getColumn(3).getInt64()});
  }
  return jobs;
}

void DurableStore::quarantine(const QuarantinedJob& job) {
  const std::lock_guard lock(mutex_);
  SQLite::Transaction transaction(*db_);
  SQLite::Statement insert(*db_,
                           "INSERT OR REPLACE INTO quarantine (id, owner, reason, found_ms) "
                           "VALUES (?, ?, ?, ?)");
  insert.bind(1, job.id);
  insert.bind(2, job.owner);
  insert.bind(3, job.reason);
  insert.bind(4, job.found_ms);
  insert.exec();
  for (const char* sql : {"DELETE FROM jobs WHERE id = ?", "DELETE FROM job_ids WHERE id = ?"}) {
    SQLite::Statement remove(*db_, sql);
    remove.bind(1, job.id);
    remove.exec();
  }
  transaction.commit();
}

void DurableStore::erase_quarantined(const std::string& id) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement remove(*db_, "DELETE FROM quarantine WHERE id = ?");
  remove.bind(1, id);
  remove.exec();
}

DurableStore::ResultLocation DurableStore::locate_result(const std::string& id) const {
  SQLite::Statement query(*db_,
                          "SELECT seq, result_bytes, result_sha256, result IS NULL FROM jobs "
                          "WHERE id = ?");
  query.bind(1, id);
  if (!query.executeStep()) throw ResultGone("job_id: job " + id + " is not stored (deleted)");
  if (query.getColumn(3).getInt() != 0) throw std::runtime_error("job " + id + " has no result");
  ResultLocation where;
  where.rowid = query.getColumn(0).getInt64();
  where.bytes = query.getColumn(1).getInt64();
  if (!query.getColumn(2).isNull()) where.sha256 = query.getColumn(2).getString();
  return where;
}

sqlite3_blob* DurableStore::open_result(const std::string& id, const ResultLocation& where) const {
  sqlite3_blob* handle = nullptr;
  if (sqlite3_blob_open(db_->getHandle(), "main", "jobs", "result", where.rowid, 0, &handle) !=
      SQLITE_OK) {
    const std::string message = sqlite3_errmsg(db_->getHandle());
    sqlite3_blob_close(handle);
    throw DamagedRecord("the stored result of job " + id + " cannot be read: " + message);
  }
  if (const int stored = sqlite3_blob_bytes(handle); stored != where.bytes) {
    sqlite3_blob_close(handle);
    throw DamagedRecord("the stored result of job " + id + " is damaged (" +
                        std::to_string(stored) + " bytes, its record says " +
                        std::to_string(where.bytes) + ")");
  }
  return handle;
}

std::string DurableStore::read_result(const std::string& id) const {
  std::string bytes;
  read_result_pieces(id, std::size_t{8} << 20, [&](std::string_view piece, std::int64_t total) {
    if (bytes.empty()) bytes.reserve(static_cast<std::size_t>(total));
    bytes.append(piece);
    return true;
  });
  return bytes;
}

void DurableStore::read_result_pieces(
    const std::string& id, std::size_t piece,
    const std::function<bool(std::string_view, std::int64_t)>& each) const {
  ResultLocation where;
  {
    const std::lock_guard lock(mutex_);
    where = locate_result(id);
  }
  // Read in batches of kResultBatch bytes (or a piece), each under a blob handle of its own that is
  // closed before its pieces are handed out: a reader that stops reading (a stalled StreamResult
  // client) then holds no read transaction, which would keep SQLite from checkpointing the WAL
  // (measured: 44 -> 529 MiB). Within a batch, one handle reads each piece from where the last
  // ended (a handle per piece walked the overflow pages from the start, quadratic in the size).
  // The stored result never changes, and seq is never reused (AUTOINCREMENT), so a reopened
  // handle reads the same bytes, or fails where the job was deleted meanwhile.
  const auto for_each_piece = [&](const std::function<bool(std::string_view)>& use) {
    std::string batch;
    for (std::int64_t start = 0; start < where.bytes;) {
      const auto size = std::max(kResultBatch, static_cast<std::int64_t>(piece));
      batch.resize(static_cast<std::size_t>(std::min(size, where.bytes - start)));
      sqlite3_blob* handle = nullptr;
      {
        const std::lock_guard lock(mutex_);
        if (start > 0) locate_result(id);  // ResultGone where the job was deleted meanwhile
        handle = open_result(id, where);
      }
      for (std::size_t offset = 0; offset < batch.size(); offset += piece) {
        const std::size_t n = std::min(piece, batch.size() - offset);
        const std::lock_guard lock(mutex_);  // per piece: writers are not held up by a read
        const int read =
            sqlite3_blob_read(handle, batch.data() + offset, static_cast<int>(n),
                              static_cast<int>(start + static_cast<std::int64_t>(offset)));
        if (read != SQLITE_OK) {
          const std::string message = sqlite3_errmsg(db_->getHandle());
          sqlite3_blob_close(handle);
          // SQLITE_ABORT: the row changed under the handle, i.e. the job was deleted meanwhile.
          if (read == SQLITE_ABORT) locate_result(id);  // throws ResultGone if so
          throw DamagedRecord("the stored result of job " + id + " cannot be read: " + message);
        }
      }
      {
        const std::lock_guard lock(mutex_);
        sqlite3_blob_close(handle);
      }
      for (std::size_t offset = 0; offset < batch.size(); offset += piece) {
        if (!use(std::string_view(batch).substr(offset, piece))) return;
      }
      start += static_cast<std::int64_t>(batch.size());
    }
  };
  if (!where.sha256.empty()) {  // the whole result is checked before a byte of it is served
    wire::Sha256 sha256;
    for_each_piece([&](std::string_view bytes) {
      sha256.update(bytes);
      return true;
    });
    if (sha256.hex() != where.sha256) {
      throw DamagedRecord("the stored result of job " + id + " is damaged (its checksum fails)");
    }
  }
  if (where.bytes == 0) {
    each({}, 0);
    return;
  }
  for_each_piece([&](std::string_view bytes) { return each(bytes, where.bytes); });
}

std::string DurableStore::find_request_key(const std::string& owner, const std::string& key) const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_, "SELECT id FROM jobs WHERE owner = ? AND request_key = ?");
  query.bind(1, owner);
  query.bind(2, key);
  return query.executeStep() ? query.getColumn(0).getString() : std::string();
}

void DurableStore::insert(const StoredJob& job) {
  const std::lock_guard lock(mutex_);
  try {
    SQLite::Transaction transaction(*db_);
    SQLite::Statement insert(*db_,
                             "INSERT INTO jobs (id, state, request, created_ms, finished_ms, "
                             "trajectories_total, cancel_requested, owner, request_sha256, "
                             "request_key, steps_total) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, job.id);
    insert.bind(2, static_cast<int>(job.state));
    insert.bind(3, job.request.data(), static_cast<int>(job.request.size()));
    insert.bind(4, job.created_ms);
    insert.bind(5, job.finished_ms);
    insert.bind(6, job.trajectories_total);
    insert.bind(7, job.cancel_requested ? 1 : 0);
    insert.bind(8, job.owner);
    insert.bind(9, wire::sha256_hex(job.request));
    if (job.request_key.empty()) {
      insert.bind(10);
    } else {
      insert.bind(10, job.request_key);
    }
    insert.bind(11, job.steps_total);
    insert.exec();
    SQLite::Statement index(*db_, "INSERT INTO job_ids (id, owner) VALUES (?, ?)");
    index.bind(1, job.id);
    index.bind(2, job.owner);
    index.exec();
    transaction.commit();
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
  SQLite::Transaction transaction(*db_);
  for (const char* sql : {"DELETE FROM jobs WHERE id = ?", "DELETE FROM job_ids WHERE id = ?"}) {
    SQLite::Statement remove(*db_, sql);
    remove.bind(1, id);
    remove.exec();
  }
  transaction.commit();
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
                           "UPDATE jobs SET checkpoint = ?, checkpoint_sha256 = ?, "
                           "trajectories_done = ? WHERE id = ?");
  bind_blob(update, 1, checkpoint);
  bind_sha256(update, 2, checkpoint);
  update.bind(3, trajectories_done);
  update.bind(4, id);
  update.exec();
}

std::string DurableStore::read_request(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_, "SELECT request, request_sha256 FROM jobs WHERE id = ?");
  query.bind(1, id);
  if (!query.executeStep()) throw std::runtime_error("job " + id + " is not stored");
  std::string request = blob(query.getColumn(0));
  if (!intact(query.getColumn(1), request)) {
    throw DamagedRecord("the stored request of job " + id + " is damaged");
  }
  return request;
}

std::string DurableStore::read_checkpoint(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  SQLite::Statement query(*db_, "SELECT checkpoint, checkpoint_sha256 FROM jobs WHERE id = ?");
  query.bind(1, id);
  if (!query.executeStep()) return {};
  std::string checkpoint = blob(query.getColumn(0));
  if (!intact(query.getColumn(1), checkpoint)) {
    throw DamagedRecord("the checkpoint of job " + id + " is damaged");
  }
  return checkpoint;
}

void DurableStore::finish(const StoredJob& job) {
  const std::lock_guard lock(mutex_);
  SQLite::Statement update(*db_,
                           "UPDATE jobs SET state = ?, finished_ms = ?, error = ?, result = ?, "
                           "result_sha256 = ?, result_bytes = ?, trajectories_done = ?, "
                           "cancel_requested = ?, checkpoint = NULL, checkpoint_sha256 = NULL "
                           "WHERE id = ?");
  update.bind(1, static_cast<int>(job.state));
  update.bind(2, job.finished_ms);
  update.bind(3, job.error);
  bind_blob(update, 4, job.result);
  bind_sha256(update, 5, job.result);
  update.bind(6, static_cast<std::int64_t>(job.result.size()));
  update.bind(7, job.trajectories_done);
  update.bind(8, job.cancel_requested ? 1 : 0);
  update.bind(9, job.id);
  update.exec();
}

bool DurableStore::probe() {
  const std::lock_guard lock(mutex_);
  try {
    SQLite::Statement write(*db_, "INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', ?)");
    write.bind(1, std::to_string(std::chrono::system_clock::now().time_since_epoch().count()));
    write.exec();
    return true;
  } catch (const std::exception&) {
    return false;
  }
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

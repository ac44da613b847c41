// The durable store's defences against damage at open: the integrity check with its salvage (of a
// truncated file too), and the store id that tells a directory's own database from an empty or
// foreign one.
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/server/durable_store.hpp"
#include "nhsim/server/log.hpp"
#include "nhsim/wire/auth.hpp"
#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The columns of a jobs row, as copied by a salvage (every column of schema 4 but seq).
constexpr const char* kJobColumns =
    "id, state, request, created_ms, started_ms, finished_ms, trajectories_done, "
    "trajectories_total, cancel_requested, error, checkpoint, result, owner, request_sha256, "
    "checkpoint_sha256, result_sha256, result_bytes, request_key";
constexpr int kJobColumnCount = 18;

/// Why a row read from a damaged database cannot be kept; empty when its blobs are intact.
std::string blob_damage(SQLite::Statement& row) {
  const auto matches = [&](int blob, int sha256) {
    const SQLite::Column checksum = row.getColumn(sha256);
    if (checksum.isNull()) return true;
    const SQLite::Column bytes = row.getColumn(blob);
    return checksum.getString() ==
           wire::sha256_hex(std::string_view(static_cast<const char*>(bytes.getBlob()),
                                             static_cast<std::size_t>(bytes.getBytes())));
  };
  if (!matches(2, 13)) return "its stored request is damaged";
  if (!matches(11, 15)) return "its stored result is damaged";
  return {};
}

/// "?, ?, ..., ?": `count` placeholders.
std::string placeholders(int count) {
  std::string marks = "?";
  for (int k = 1; k < count; ++k) marks += ", ?";
  return marks;
}

/// Binds a value read from another database, of whichever type it has.
void bind_column(SQLite::Statement& statement, int index, const SQLite::Column& value) {
  if (value.isNull()) {
    statement.bind(index);
  } else if (value.isInteger()) {
    statement.bind(index, value.getInt64());
  } else if (value.isFloat()) {
    statement.bind(index, value.getDouble());
  } else if (value.isText()) {
    statement.bind(index, value.getString());
  } else {
    statement.bind(index, value.getBlob(), value.getBytes());
  }
}

/// Runs `scan`, keeping what it found before the database's damage stopped it.
void tolerant(const std::function<void()>& scan) {
  try {
    scan();
  } catch (const std::exception&) {  // SQLITE_CORRUPT part-way: what was read stays
  }
}

/// Copies the `count` `columns` of every row of `table` that `from` can still read into the same
/// table of `to` (rows already there are kept).
void copy_readable_rows(SQLite::Database& from, SQLite::Database& to, const std::string& table,
                        const std::string& columns, int count) {
  tolerant([&] {
    SQLite::Statement rows(from, "SELECT " + columns + " FROM " + table);
    SQLite::Statement keep(to, "INSERT OR IGNORE INTO " + table + " (" + columns + ") VALUES (" +
                                   placeholders(count) + ")");
    while (rows.executeStep()) {
      for (int k = 0; k < count; ++k) bind_column(keep, k + 1, rows.getColumn(k));
      keep.exec();
      keep.reset();
    }
  });
}

/// Opens a damaged database for reading what it still holds: with writable_schema, under which
/// SQLite loads the schema of a truncated file instead of answering SQLITE_CORRUPT.
std::unique_ptr<SQLite::Database> open_damaged(const fs::path& path) {
  auto db = std::make_unique<SQLite::Database>(path.string(), SQLite::OPEN_READONLY);
  db->exec("PRAGMA writable_schema = ON");
  return db;
}

}  // namespace

void DurableStore::open_checked() {
  try {
    open_database();
  } catch (const SQLite::Exception& e) {
    const int code = e.getErrorCode() & 0xff;  // the primary result code
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) throw;
    salvage(e.what());
    return;
  }
  check_integrity();
}

void DurableStore::check_integrity() {
  std::string report;
  try {
    SQLite::Statement check(*db_, "PRAGMA integrity_check(20)");
    while (check.executeStep()) {
      const std::string line = check.getColumn(0).getString();
      if (line == "ok") return;
      report += (report.empty() ? "" : "; ") + line;
    }
  } catch (const SQLite::Exception& e) {  // damage that stops the check itself
    report += (report.empty() ? "" : "; ") + std::string(e.what());
  }
  salvage(report);  // the check's statement is finalized: the database can be closed
}

void DurableStore::salvage(const std::string& report) {
  if (db_) tolerant([&] { db_->exec("PRAGMA wal_checkpoint(TRUNCATE)"); });
  db_.reset();
  int version = -1;  // unreadable: not a database of any schema
  tolerant([&] { version = open_damaged(path_)->execAndGet("PRAGMA user_version").getInt(); });
  if (version != kSchemaVersion) {
    throw std::runtime_error("the database is damaged (PRAGMA integrity_check: " + report +
                             ") and its schema version " + std::to_string(version) +
                             " is not this nhsimd's " + std::to_string(kSchemaVersion) +
                             ": restore it from a backup");
  }
  const fs::path damaged = path_.string() + ".damaged-" + std::to_string(now_ms());
  fs::rename(path_, damaged);
  for (const char* suffix : {"-wal", "-shm"}) {
    std::error_code ignored;
    fs::rename(path_.string() + suffix, damaged.string() + suffix, ignored);
  }
  log_line("job store " + path_.string() + " is damaged (PRAGMA integrity_check: " + report +
               "); set aside as " + damaged.string() + ", its intact jobs are copied into a " +
               "new database and the others quarantined",
           LogLevel::kError);

  const std::unique_ptr<SQLite::Database> damaged_db = open_damaged(damaged);
  SQLite::Database& old = *damaged_db;
  // Every job id the damaged database still names, on any of its three copies (the jobs table,
  // its id index, the job_ids table), and the owner as job_ids holds it.
  std::map<std::string, std::string> id_owners;
  std::set<std::string> named;
  tolerant([&] {
    SQLite::Statement ids(old, "SELECT id, owner FROM job_ids");
    while (ids.executeStep()) {
      id_owners[ids.getColumn(0).getString()] = ids.getColumn(1).getString();
      named.insert(ids.getColumn(0).getString());
    }
  });
  tolerant([&] {
    SQLite::Statement ids(old, "SELECT id FROM jobs INDEXED BY sqlite_autoindex_jobs_1");
    while (ids.executeStep()) named.insert(ids.getColumn(0).getString());
  });
  // A job's owner only where its two copies, on different pages, agree: damage that rewrote
  // one must not hand the job to another identity or hide it from its owner. Without a
  // verified owner a job is quarantined with none (answered DATA_LOSS to whoever holds its id,
  // listed to admins).
  std::map<std::string, std::string> owners;
  open_database();
  migrate();
  int copied = 0;
  std::map<std::string, std::string> lost;  // id -> reason
  {
    SQLite::Transaction transaction(*db_);
    SQLite::Statement insert(*db_, std::string("INSERT INTO jobs (") + kJobColumns + ") VALUES (" +
                                       placeholders(kJobColumnCount) + ")");
    SQLite::Statement index(*db_, "INSERT INTO job_ids (id, owner) VALUES (?, ?)");
    std::set<std::string> kept;
    tolerant([&] {
      SQLite::Statement rows(old, std::string("SELECT ") + kJobColumns + " FROM jobs ORDER BY seq");
      while (rows.executeStep()) {
        const std::string id = rows.getColumn(0).getString();
        named.insert(id);
        const auto copy = id_owners.find(id);
        const bool verified =
            copy != id_owners.end() && copy->second == rows.getColumn(12).getString();
        if (verified) owners[id] = copy->second;
        if (const std::string damage = blob_damage(rows); !damage.empty()) {
          lost[id] = damage;
          continue;
        }
        if (!verified) {
          lost[id] = "its stored owner is damaged (its two copies differ or one is lost)";
          continue;
        }
        for (int k = 0; k < kJobColumnCount; ++k) bind_column(insert, k + 1, rows.getColumn(k));
        insert.exec();
        insert.reset();
        index.bind(1, id);
        index.bind(2, owners[id]);
        index.exec();
        index.reset();
        kept.insert(id);
        ++copied;
      }
    });
    for (const std::string& id : named) {
      if (!kept.contains(id)) lost.try_emplace(id, "its stored record is damaged");
    }
    SQLite::Statement quarantine(
        *db_, "INSERT INTO quarantine (id, owner, reason, found_ms) VALUES (?, ?, ?, ?)");
    for (const auto& [id, reason] : lost) {
      quarantine.bind(1, id);
      quarantine.bind(2, owners[id]);  // "" where not verified
      quarantine.bind(3, reason);
      quarantine.bind(4, now_ms());
      quarantine.exec();
      quarantine.reset();
    }
    // What was quarantined before stays quarantined; registered systems: the intact ones.
    copy_readable_rows(old, *db_, "quarantine", "id, owner, reason, found_ms", 4);
    copy_readable_rows(old, *db_, "systems", "owner, name, definition, description, created_ms", 5);
    // The store keeps its id (the directory's store-id names it, should the damage have
    // taken the meta table).
    std::string store_id;
    tolerant([&] {
      store_id = old.execAndGet("SELECT value FROM meta WHERE key = 'store_id'").getString();
    });
    if (store_id.empty()) {
      if (std::ifstream in(data_dir_ / "store-id"); in) std::getline(in, store_id);
    }
    if (!store_id.empty()) {
      SQLite::Statement keep(*db_, "INSERT INTO meta (key, value) VALUES ('store_id', ?)");
      keep.bind(1, store_id);
      keep.exec();
    }
    transaction.commit();
  }
  std::string names;
  for (const auto& [id, reason] : lost) names += " " + id;
  log_line("job store " + path_.string() + ": salvaged " + std::to_string(copied) + " jobs; " +
               std::to_string(lost.size()) + " quarantined (answered with DATA_LOSS)" +
               (names.empty() ? "" : ":" + names),
           lost.empty() ? LogLevel::kWarning : LogLevel::kError);
}

void DurableStore::check_store_id(bool accept_new_store) {
  const fs::path marker = data_dir_ / "store-id";
  std::string expected;
  if (std::ifstream in(marker); in) std::getline(in, expected);
  std::string actual;
  {
    SQLite::Statement query(*db_, "SELECT value FROM meta WHERE key = 'store_id'");
    if (query.executeStep()) actual = query.getColumn(0).getString();
  }
  if (!expected.empty() && actual != expected && !accept_new_store) {
    const std::int64_t jobs = db_->execAndGet("SELECT count(*) FROM jobs").getInt64();
    throw std::runtime_error(
        "this directory held the job store " + expected + " (" + marker.string() + "), but " +
        path_.string() + " is " +
        (actual.empty() ? "a new or empty database (" + std::to_string(jobs) + " jobs)"
                        : "the store " + actual) +
        ": its jobs would be lost. Restore the database, or start with --accept-new-store to "
        "take this one");
  }
  if (actual.empty()) {
    actual = wire::random_hex(16);
    SQLite::Statement insert(*db_, "INSERT INTO meta (key, value) VALUES ('store_id', ?)");
    insert.bind(1, actual);
    insert.exec();
  }
  if (actual != expected) {
    const fs::path temporary = marker.string() + ".new";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << actual << "\n";
      out.flush();
      if (!out) throw std::runtime_error(temporary.string() + ": cannot write the store id");
    }
    fs::rename(temporary, marker);
    if (!expected.empty()) {
      log_line("job store " + path_.string() + ": taken as the directory's store " + actual +
                   " (--accept-new-store; it held " + expected + ")",
               LogLevel::kWarning);
    }
  }
}

}  // namespace nhsim::server

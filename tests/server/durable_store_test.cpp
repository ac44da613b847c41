// The durable job store: what is written is read back after reopening; the schema is versioned
// and a newer one refused; one nhsimd per data directory.
#include "nhsim/server/durable_store.hpp"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <future>
#include <string>
#include <string_view>
#include <thread>

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;

class DurableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nhsim-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

StoredJob queued_job(const std::string& id) {
  StoredJob job;
  job.id = id;
  job.owner = "alice";
  job.request = std::string("\x0a\x03sys\0binary", 12);  // any bytes, zeros included
  job.created_ms = 1700000000123;
  job.trajectories_total = 40;
  return job;
}

/// Job `id`, finished with a result of `bytes` bytes.
StoredJob finished_job(const std::string& id, std::size_t bytes) {
  StoredJob job = queued_job(id);
  job.state = v1::SUCCEEDED;
  job.finished_ms = job.created_ms + 1;
  job.result.assign(bytes, 'r');
  return job;
}

// Issue 57 item 3: a StreamResult client that stopped reading kept a read transaction open, so
// SQLite could not checkpoint: the WAL grew 44 -> 529 MiB while the database stayed at 43 MiB.
TEST_F(DurableStoreTest, AReaderThatStopsReadingDoesNotPinTheWal) {
  DurableStore store(dir_);
  store.insert(queued_job("big"));
  store.finish(finished_job("big", std::size_t{8} << 20));
  std::promise<void> reading, release;
  std::thread reader([&] {
    bool first = true;
    store.read_result_pieces("big", std::size_t{1} << 19, [&](std::string_view, std::int64_t) {
      if (first) reading.set_value();
      first = false;
      release.get_future().wait();  // a client that stopped reading
      return false;
    });
  });
  reading.get_future().wait();
  for (int k = 0; k < 40; ++k) {  // 40 MiB of results written meanwhile
    const std::string id = "job" + std::to_string(k);
    store.insert(queued_job(id));
    store.finish(finished_job(id, std::size_t{1} << 20));
  }
  const auto wal = fs::file_size(dir_ / "nhsimd.sqlite3-wal");
  release.set_value();
  reader.join();
  RecordProperty("wal_bytes", std::to_string(wal));
  EXPECT_LT(wal, std::uintmax_t{16} << 20);  // checkpointed as it went (about 4 MiB at a time)
  EXPECT_EQ(store.read_result("job39"), std::string(std::size_t{1} << 20, 'r'));
}

// Issue 57 item 3: DeleteJob now removes a job whose result is being read; the read, which holds
// no transaction between its batches, then ends with ResultGone (NOT_FOUND), not a damaged-record
// or server error.
TEST_F(DurableStoreTest, AResultDeletedWhileItIsReadEndsTheReadWithResultGone) {
  DurableStore store(dir_);
  store.insert(queued_job("big"));
  store.finish(finished_job("big", std::size_t{8} << 20));
  std::size_t served = 0;
  try {
    store.read_result_pieces("big", std::size_t{1} << 19,
                             [&](std::string_view piece, std::int64_t) {
                               if (served == 0) store.erase("big");
                               served += piece.size();
                               return true;
                             });
    ADD_FAILURE() << "the read of a deleted result ended without an error";
  } catch (const ResultGone& e) {
    EXPECT_NE(std::string(e.what()).find("big"), std::string::npos) << e.what();
  }
  EXPECT_GT(served, 0u);
  EXPECT_LT(served, std::size_t{8} << 20);
  EXPECT_THROW(store.read_result("big"), ResultGone);
}

TEST_F(DurableStoreTest, WhatIsWrittenIsReadBackAfterReopening) {
  {
    DurableStore store(dir_);
    store.insert(queued_job("a"));
    store.insert(queued_job("b"));
    store.set_running("a", 1700000000456);
    store.save_checkpoint("a", std::string("partial\0state", 13), 12);
    store.set_cancel_requested("b");
    StoredJob done = queued_job("b");
    done.state = v1::CANCELLED;
    done.finished_ms = 1700000000789;
    done.trajectories_done = 3;
    done.cancel_requested = true;
    done.result = "result bytes";
    store.finish(done);
  }
  DurableStore reopened(dir_);
  const auto jobs = reopened.load();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "a");  // in the order they were stored
  EXPECT_EQ(jobs[0].owner, "alice");
  EXPECT_EQ(jobs[0].state, v1::RUNNING);
  EXPECT_EQ(jobs[0].request, queued_job("a").request);
  EXPECT_EQ(jobs[0].created_ms, 1700000000123);
  EXPECT_EQ(jobs[0].started_ms, 1700000000456);
  EXPECT_EQ(jobs[0].checkpoint, std::string("partial\0state", 13));
  EXPECT_EQ(jobs[0].trajectories_done, 12);
  EXPECT_EQ(jobs[0].trajectories_total, 40);
  EXPECT_EQ(jobs[1].state, v1::CANCELLED);
  EXPECT_TRUE(jobs[1].cancel_requested);
  EXPECT_EQ(jobs[1].finished_ms, 1700000000789);
  EXPECT_EQ(jobs[1].result, "");  // read when asked for, checked against its checksum
  EXPECT_EQ(jobs[1].result_bytes, 12);
  EXPECT_EQ(reopened.read_result("b"), "result bytes");
  EXPECT_TRUE(jobs[1].checkpoint.empty());
  EXPECT_THROW(reopened.insert(queued_job("a")), std::runtime_error);  // ids are unique
  reopened.erase("a");
  ASSERT_EQ(reopened.load().size(), 1u);
  EXPECT_EQ(reopened.load()[0].id, "b");
}

TEST_F(DurableStoreTest, TheSchemaIsVersionedAndANewerOneIsRefused) {
  { DurableStore store(dir_); }
  {
    SQLite::Database db((dir_ / "nhsimd.sqlite3").string(), SQLite::OPEN_READWRITE);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), DurableStore::kSchemaVersion);
    EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
    db.exec("PRAGMA user_version = " + std::to_string(DurableStore::kSchemaVersion + 1));
  }
  try {
    DurableStore newer(dir_);
    ADD_FAILURE() << "opened a database of a newer schema";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is newer than this nhsimd's"), std::string::npos)
        << e.what();
  }
}

TEST_F(DurableStoreTest, AVersion1StoreIsMigratedAndItsJobsBelongToTheAnonymousIdentity) {
  {  // the schema of nhsimd before jobs had owners, with one job in it
    SQLite::Database db((dir_ / "nhsimd.sqlite3").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
        "state INTEGER NOT NULL, request BLOB NOT NULL, created_ms INTEGER NOT NULL, "
        "started_ms INTEGER NOT NULL DEFAULT 0, finished_ms INTEGER NOT NULL DEFAULT 0, "
        "trajectories_done INTEGER NOT NULL DEFAULT 0, trajectories_total INTEGER NOT NULL, "
        "cancel_requested INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '', "
        "checkpoint BLOB, result BLOB)");
    db.exec(
        "INSERT INTO jobs (id, state, request, created_ms, trajectories_total) "
        "VALUES ('old', 1, x'0a03737973', 1700000000000, 8)");
    db.exec("PRAGMA user_version = 1");
  }
  DurableStore store(dir_);
  const auto jobs = store.load();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, "old");
  EXPECT_EQ(jobs[0].owner, "anonymous");
  EXPECT_EQ(jobs[0].request, "\x0a\x03sys");
  EXPECT_EQ(jobs[0].trajectories_total, 8);
  store.insert(queued_job("new"));
  EXPECT_EQ(store.load()[1].owner, "alice");
}

// Issue 49: the data directory was created 0755 and the database 0644, readable by every local
// user. A directory the store creates is 0700 and its database files 0600; a directory the
// operator made keeps its mode.
TEST_F(DurableStoreTest, TheDataDirectoryAndTheDatabaseAreTheOwnersOnly) {
  const auto mode = [](const fs::path& p) {
    return static_cast<unsigned>(fs::status(p).permissions()) & 0777U;
  };
  const fs::path created = dir_ / "new" / "data";
  {
    DurableStore store(created);
    store.insert(queued_job("0123456789abcdef0123456789abcdef"));
    EXPECT_EQ(mode(created), 0700U);
    for (const char* name : {"nhsimd.sqlite3", "nhsimd.sqlite3-wal", "nhsimd.sqlite3-shm"}) {
      ASSERT_TRUE(fs::exists(created / name)) << name;
      EXPECT_EQ(mode(created / name) & 0077U, 0U)
          << name << " mode " << std::oct << mode(created / name);
    }
  }
  const fs::path made = dir_ / "made";
  fs::create_directory(made);
  fs::permissions(made, static_cast<fs::perms>(0750));
  DurableStore store(made);
  EXPECT_EQ(mode(made), 0750U);
  EXPECT_EQ(mode(made / "nhsimd.sqlite3"), 0600U);
}

TEST_F(DurableStoreTest, OneServerPerDataDirectory) {
  DurableStore first(dir_);
  try {
    DurableStore second(dir_);
    ADD_FAILURE() << "two stores on one directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another nhsimd"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace nhsim::server

// Damage to the durable store is detected and named, never served as data: a result that fails
// its checksum, an empty or foreign database in a directory that held a store, and every single
// page of a database overwritten in turn.
#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>

#include "nhsim/server/durable_store.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path temporary_directory() {
  char pattern[] = "/tmp/nhsim-damage-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Six finished jobs in a new store at `dir`, each with a result of 6000 bytes (more than a page:
/// the results lie on overflow pages); returns id -> result.
std::map<std::string, std::string> fill(const fs::path& dir) {
  std::map<std::string, std::string> results;
  DurableStore store(dir);
  std::mt19937_64 random(7);
  for (int k = 0; k < 6; ++k) {
    StoredJob job;
    job.id = std::string(31, "0123456789abcdef"[k]) + "f";
    job.owner = k % 2 == 0 ? "alice" : "bob";
    job.request = "request of job " + std::to_string(k);
    job.created_ms = 1700000000000 + k;
    job.trajectories_total = 10;
    store.insert(job);
    job.state = v1::SUCCEEDED;
    job.finished_ms = job.created_ms + 1000;
    job.result.resize(6000);
    for (char& c : job.result) c = static_cast<char>(random());
    store.finish(job);
    results[job.id] = job.result;
  }
  return results;
}

class StoreDamageTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temporary_directory(); }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

// Item 10: a truncated stored result was served as OK (3889 of 7755 bytes), random bytes as OK.
TEST_F(StoreDamageTest, AResultThatFailsItsChecksumIsDamagedNeverData) {
  const auto results = fill(dir_);
  const auto id = [&](int k) { return std::next(results.begin(), k)->first; };
  {
    SQLite::Database raw((dir_ / "nhsimd.sqlite3").string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE jobs SET result = substr(result, 1, 3000) WHERE id = '" + id(0) + "'");
    raw.exec("UPDATE jobs SET result = randomblob(6000) WHERE id = '" + id(1) + "'");
  }
  DurableStore store(dir_);
  EXPECT_THROW(store.read_result(id(0)), DamagedRecord);
  try {
    store.read_result(id(1));
    ADD_FAILURE() << "random bytes were served";
  } catch (const DamagedRecord& e) {
    EXPECT_THAT(e.what(), HasSubstr("the stored result of job " + id(1) + " is damaged"));
  }
  int pieces = 0;  // nothing of a damaged result is handed out, not even its first piece
  EXPECT_THROW(store.read_result_pieces(id(1), 512,
                                        [&](std::string_view, std::int64_t) { return ++pieces; }),
               DamagedRecord);
  EXPECT_EQ(pieces, 0);
  EXPECT_EQ(store.read_result(id(2)), results.at(id(2)));
}

// Item 9: a 0-byte database file was taken as a new, empty store ("0 jobs"): six jobs gone.
TEST_F(StoreDamageTest, AnEmptyDatabaseInADirectoryThatHeldAStoreIsRefusedUnlessAccepted) {
  fill(dir_);
  fs::resize_file(dir_ / "nhsimd.sqlite3", 0);
  try {
    DurableStore store(dir_);
    ADD_FAILURE() << "an empty database was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("a new or empty database (0 jobs)"));
    EXPECT_THAT(e.what(), HasSubstr("--accept-new-store"));
  }
  { DurableStore accepted(dir_, {.accept_new_store = true}); }
  DurableStore again(dir_);  // the directory's store is now the new one
  EXPECT_TRUE(again.load().empty());
}

// Issue 57 item 6: a truncated database made nhsimd exit ("database disk image is malformed")
// with nothing set aside. It is set aside as it is, and every job is read back intact, answered
// as damaged, or quarantined by name.
TEST_F(StoreDamageTest, ATruncatedDatabaseIsSetAsideAndSalvaged) {
  const auto results = fill(dir_);
  const auto half = fs::file_size(dir_ / "nhsimd.sqlite3") / 2;
  fs::resize_file(dir_ / "nhsimd.sqlite3", half);
  DurableStore store(dir_);
  std::set<std::string> accounted;
  int intact = 0;
  for (const StoredJob& job : store.load()) {
    accounted.insert(job.id);
    try {
      EXPECT_EQ(store.read_result(job.id), results.at(job.id));
      ++intact;
    } catch (const DamagedRecord&) {
    }
  }
  for (const QuarantinedJob& job : store.load_quarantine()) accounted.insert(job.id);
  for (const auto& [id, result] : results) {
    EXPECT_TRUE(accounted.contains(id)) << "job " << id << " is missing";
  }
  std::uintmax_t set_aside = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("nhsimd.sqlite3.damaged-") && !name.ends_with("-wal") &&
        !name.ends_with("-shm")) {
      set_aside = fs::file_size(entry.path());
    }
  }
  EXPECT_EQ(set_aside, half);  // kept as it was found
  RecordProperty("intact", intact);
}

// Issue 57 item 5: with random pages overwritten, 4 of 48 jobs answered NOT_FOUND to their
// real owner and were unlisted: the salvage took the owner from a damaged page. A salvaged job
// keeps its owner only where the owner's two copies (jobs and job_ids) agree.
TEST_F(StoreDamageTest, ASalvageKeepsAnOwnerOnlyWhereItsTwoCopiesAgree) {
  const auto results = fill(dir_);  // owners alternate: alice, bob, alice, ...
  const std::string rewritten = results.begin()->first;
  const fs::path database = dir_ / "nhsimd.sqlite3";
  {
    SQLite::Database raw(database.string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE job_ids SET owner = 'mallory' WHERE id = '" + rewritten + "'");
  }
  // Damage that sends the store to its salvage with every page readable: the header's page
  // count (bytes 28-31, big-endian) one more than the file holds.
  std::string bytes = read_file(database);
  ASSERT_LT(static_cast<unsigned char>(bytes[31]), 255);  // no carry into byte 30
  bytes[31] = static_cast<char>(bytes[31] + 1);
  write_file(database, bytes);

  DurableStore store(dir_);
  std::map<std::string, std::string> owners;
  for (const StoredJob& job : store.load()) owners[job.id] = job.owner;
  EXPECT_FALSE(owners.contains(rewritten));
  int k = 0;
  for (const auto& [id, result] : results) {
    if (id != rewritten) {
      EXPECT_EQ(owners[id], k % 2 == 0 ? "alice" : "bob") << id;
      EXPECT_EQ(store.read_result(id), result);
    }
    ++k;
  }
  const auto quarantined = store.load_quarantine();
  ASSERT_EQ(quarantined.size(), 1u);
  EXPECT_EQ(quarantined[0].id, rewritten);
  EXPECT_EQ(quarantined[0].owner, "");  // neither alice's nor mallory's
  EXPECT_THAT(quarantined[0].reason, HasSubstr("owner"));
}

TEST_F(StoreDamageTest, ADatabaseOfAnotherDirectoryIsRefused) {
  fill(dir_);
  const fs::path other = temporary_directory();
  fill(other);
  fs::copy_file(other / "nhsimd.sqlite3", dir_ / "nhsimd.sqlite3",
                fs::copy_options::overwrite_existing);
  fs::remove_all(other);
  try {
    DurableStore store(dir_);
    ADD_FAILURE() << "another directory's database was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("this directory held the job store"));
    EXPECT_THAT(e.what(), HasSubstr("is the store "));
  }
}

// Item 9: with random pages overwritten, 2 of 6 trials started with jobs silently missing. Here
// every page but the header is overwritten in turn: each job is then read back intact, answered
// as damaged, or quarantined by name; or the store refuses to open, naming the database. Never
// missing, never wrong bytes.
TEST_F(StoreDamageTest, NoOverwrittenPageLeavesAJobSilentlyMissingOrServesWrongBytes) {
  const fs::path pristine = temporary_directory();
  const auto results = fill(pristine);
  const std::string bytes = read_file(pristine / "nhsimd.sqlite3");
  const std::string store_id = read_file(pristine / "store-id");
  fs::remove_all(pristine);
  constexpr std::size_t kPage = 4096;  // SQLite's default page size
  const std::size_t pages = bytes.size() / kPage;
  ASSERT_GE(pages, 10u);
  std::mt19937_64 random(20261129);
  int intact = 0, salvaged = 0, refused = 0;
  for (std::size_t page = 1; page < pages; ++page) {
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    std::string damaged = bytes;
    for (std::size_t i = 0; i < kPage; ++i) damaged[page * kPage + i] = static_cast<char>(random());
    write_file(dir_ / "nhsimd.sqlite3", damaged);
    write_file(dir_ / "store-id", store_id);
    try {
      DurableStore store(dir_);
      std::set<std::string> accounted;
      for (const StoredJob& job : store.load()) {
        accounted.insert(job.id);
        try {
          EXPECT_EQ(store.read_result(job.id), results.at(job.id)) << "page " << page;
        } catch (const DamagedRecord&) {
        }
      }
      const auto quarantined = store.load_quarantine();
      for (const QuarantinedJob& job : quarantined) accounted.insert(job.id);
      for (const auto& [id, result] : results) {
        EXPECT_TRUE(accounted.contains(id)) << "page " << page << ": job " << id << " is missing";
      }
      bool set_aside = false;
      for (const auto& entry : fs::directory_iterator(dir_)) {
        set_aside |= entry.path().filename().string().starts_with("nhsimd.sqlite3.damaged-");
      }
      (set_aside ? salvaged : intact) += 1;
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("nhsimd.sqlite3")) << "page " << page;
      ++refused;
    }
  }
  RecordProperty("pages", static_cast<int>(pages));
  RecordProperty("salvaged", salvaged);
  RecordProperty("refused", refused);
  EXPECT_GT(salvaged, 0);  // the check found damage and salvaged the rest
}

}  // namespace
}  // namespace nhsim::server

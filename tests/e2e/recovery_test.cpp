// A job accepted is a job answered, across crashes and restarts: nhsimd killed (SIGKILL) at
// random points of a running job, or stopped (SIGTERM) with a job running and one queued,
// resumes every job from its last checkpoint at the next start, and the results equal an
// uninterrupted run's bit for bit.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace nhsim::e2e {
namespace {

using ::testing::HasSubstr;

/// About 2 s of work on 2 threads (gonzalez and avf in SIMD lanes): an implicit, an
/// energy-preserving and an explicit method.
constexpr const char* kLongSpec = R"({
  "system": "chaotic_quartic",
  "parameters": {"n": 3},
  "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 3, "count": 120}},
  "integrators": [
    {"integrator": "gonzalez", "h": 0.05, "sample_every": 100},
    {"integrator": "avf", "h": 0.05, "sample_every": 100},
    {"integrator": "si_dla", "h": 0.05, "sample_every": 100}
  ],
  "t_final": 1500.0,
  "label": "recovery"
})";

/// The trajectory runs of the checkpoint the job resumed from in a log ("from the start": 0);
/// -1 if the log does not show the job recovered.
long resumed_from(const std::string& log, const std::string& job) {
  std::smatch match;
  if (std::regex_search(
          log, match,
          std::regex("job " + job + " recovered: resumes from a checkpoint of ([0-9]+)"))) {
    return std::stol(match[1]);
  }
  return log.find("job " + job + " recovered: resumes from the start") != std::string::npos ? 0
                                                                                            : -1;
}

/// The job's trajectory runs in its latest stored checkpoint (read from the running nhsimd's
/// database, as a second SQLite reader of its WAL); -1 once the job has ended.
long stored_checkpoint(const fs::path& store, const std::string& job) {
  SQLite::Database db((store / "nhsimd.sqlite3").string(), SQLite::OPEN_READONLY);
  SQLite::Statement query(db, "SELECT trajectories_done, state FROM jobs WHERE id = ?");
  query.bind(1, job);
  if (!query.executeStep()) return 0;
  const int state = query.getColumn(1).getInt();
  return state == 1 || state == 2 ? query.getColumn(0).getInt64() : -1;  // QUEUED, RUNNING
}

class RecoveryTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_file(dir_ / "long.json", kLongSpec);
    const CliRun reference =
        nhsim("run " + path("long.json") + " --threads 2 --json " + path("reference.json"));
    ASSERT_EQ(reference.exit_code, 0) << reference.err;
  }

  /// Checkpoints every 0.2 s of work, so that kills land before, between and during them.
  std::string checkpoint_seconds() const override { return "0.2"; }

  /// One job at a time, so that a second job waits in the queue.
  std::vector<std::string> extra_server_args() const override {
    return {"--max-running-jobs", "1"};
  }

  /// Waits for the job to end; expects SUCCEEDED and the statistics of result file `reference`.
  void expect_reference_result(const std::string& job,
                               const std::string& reference = "reference.json") {
    const CliRun watched = nhsim("watch " + job);
    ASSERT_EQ(watched.exit_code, 0) << watched.err << read_file(log_);
    const CliRun result = nhsim("result " + job + " --json " + path(job + ".json"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(same_statistics(statistics_of(read_file(dir_ / (job + ".json"))),
                                statistics_of(read_file(dir_ / reference))));
  }

  /// The trajectory runs of the job's first stored checkpoint, waited for up to 30 s; 0 if the
  /// job ended (or the wait did) before one.
  long first_checkpoint(const std::string& job) const {
    long stored = stored_checkpoint(dir_ / "store", job);
    for (int wait = 0; wait < 3000 && stored == 0; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stored = stored_checkpoint(dir_ / "store", job);
    }
    return stored;
  }

  std::string submit(const std::string& spec_file) {
    const CliRun submitted = nhsim("submit " + path(spec_file));
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    return submitted.out.substr(0, submitted.out.find('\n'));
  }
};

TEST_F(RecoveryTest, KilledAtRandomPointsTheJobResumesToTheUninterruptedBits) {
  const std::string job = submit("long.json");
  std::random_device device;
  const unsigned seed = device();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(0, 250);
  long last_checkpoint = 0;
  std::string resumed_sequence;  // reported, to see where the kills landed
  for (int kill = 0; kill < 4; ++kill) {
    // Each kill comes after a new checkpoint, at a random point up to 0.25 s later (between
    // checkpoints, or while the next one is written), whatever the machine's load.
    long stored = stored_checkpoint(dir_ / "store", job);
    for (int wait = 0; wait < 3000 && stored >= 0 && stored <= last_checkpoint; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stored = stored_checkpoint(dir_ / "store", job);
    }
    if (stored < 0) break;  // the job has ended
    const int ms = delay_ms(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    stop_server(SIGKILL);
    start_server();
    const std::string log = read_file(log_);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", kill " + std::to_string(kill) + " " +
                 std::to_string(ms) + " ms after the checkpoint of " + std::to_string(stored));
    if (log.find("0 to resume") != std::string::npos) break;  // it had finished
    const long resumed = resumed_from(log, job);
    ASSERT_GE(resumed, stored) << "a completed checkpoint was lost\n" << log;
    last_checkpoint = resumed;
    resumed_sequence += std::to_string(resumed) + " ";
  }
  EXPECT_GT(last_checkpoint, 0) << "no kill found a checkpoint: the test did not test resuming";
  RecordProperty("kill_seed", std::to_string(seed));
  RecordProperty("resumed_from_trajectory_runs", resumed_sequence);
  expect_reference_result(job);
}

// A sweep's checkpoint holds every case's choices: killed once after a checkpoint, it resumes
// from it to the uninterrupted bits.
TEST_F(RecoveryTest, AKilledSweepResumesToTheUninterruptedBits) {
  std::string spec = kLongSpec;
  const std::string tail = "\"label\": \"recovery\"";
  spec.replace(spec.find(tail), tail.size(),
               "\"label\": \"sweep\", \"sweep\": [{\"t_final\": [500, 1000]}]");
  write_file(dir_ / "sweep.json", spec);
  const CliRun reference =
      nhsim("run " + path("sweep.json") + " --threads 2 --json " + path("sweep-reference.json"));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const std::string job = submit("sweep.json");
  const long stored = first_checkpoint(job);
  ASSERT_GT(stored, 0) << "the job ended before its first checkpoint";
  stop_server(SIGKILL);
  start_server();
  EXPECT_GE(resumed_from(read_file(log_), job), stored) << read_file(log_);
  expect_reference_result(job, "sweep-reference.json");
}

TEST_F(RecoveryTest, SigtermDrainsWithinTwoSecondsAndEveryJobResumes) {
  const std::string running = submit("long.json");
  const std::string queued = submit("tiny.json");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto signalled = std::chrono::steady_clock::now();
  const int status = stop_server(SIGTERM);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(seconds, 2.0) << "nhsimd took " << seconds << " s to stop";
  EXPECT_THAT(read_file(log_), HasSubstr("job " + running + " interrupted by shutdown"));

  start_server();
  const std::string log = read_file(log_);
  EXPECT_THAT(log, HasSubstr("2 to resume"));
  EXPECT_GE(resumed_from(log, running), 0);
  expect_reference_result(running);
  const CliRun tiny = nhsim("watch " + queued);
  EXPECT_EQ(tiny.exit_code, 0) << tiny.err;  // SUCCEEDED, not cancelled by the shutdown
}

/// A submit that compiles for about 16 s: a sweep of 64 cases (the most a user-defined system
/// may have), each compiling a mass matrix whose symmetry check expands about 9e4 terms, near
/// the bound (0.25 s each here).
constexpr const char* kLongCompileSpec = R"({
  "custom_system": {
    "coordinates": ["x", "y", "z"],
    "parameters": [{"name": "k", "value": 1}],
    "mass_matrix": [{"entries": ["1", "k*(x+y+z)^23*(x-y+z)^23", "0"]},
                    {"entries": ["k*((x+z)^2-y^2)^23", "1", "0"]},
                    {"entries": ["0", "0", "1"]}],
    "potential": "x^2",
    "constraints": [{"entries": ["0", "0", "1"]}]
  },
  "initial_conditions": {"states": [{"q": [0, 0, 0], "p": [0, 0, 0]}]},
  "integrators": [{"integrator": "gonzalez_r", "h": 0.1}],
  "t_final": 1.0,
  "sweep": [{"parameters.k": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                              20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
                              37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,
                              54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64]}]
})";

class LongCompileTest : public CliTest {
 protected:
  std::vector<std::string> extra_server_args() const override { return {"--drain-seconds", "1"}; }
};

// A request thread inside a compile cannot be interrupted: SIGTERM still ends nhsimd within
// --drain-seconds, with status 1 and a line that says why, and the store serves at the next start.
TEST_F(LongCompileTest, SigtermExitsWithinTheDrainTimeWhileACompileRuns) {
  write_file(dir_ / "compile.json", kLongCompileSpec);
  const std::string submit = quote(NHSIM_PATH) + " --server " + address_ + " submit " +
                             path("compile.json") + " >/dev/null 2>&1";
  std::thread client([&] { (void)std::system(submit.c_str()); });  // UNAVAILABLE at the exit
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));    // inside the compile
  const auto signalled = std::chrono::steady_clock::now();
  const int status = stop_server(SIGTERM);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  client.join();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_GE(seconds, 1.0);
  EXPECT_LT(seconds, 5.0) << "nhsimd took " << seconds << " s to stop";
  EXPECT_THAT(read_file(log_), HasSubstr("not stopped within --drain-seconds (1 s, a request "
                                         "still runs): exiting now"));
  start_server();
  const CliRun tiny = nhsim("submit " + path("tiny.json") + " --wait");
  EXPECT_EQ(tiny.exit_code, 0) << tiny.err;
}

// A client that goes away while its sweep's cases compile: the submit stops at the next case
// (within about 0.25 s here) instead of compiling all 64 for nobody.
TEST_F(LongCompileTest, ASubmitWhoseClientWentAwayStopsBetweenSweepCases) {
  write_file(dir_ / "compile.json", kLongCompileSpec);
  const std::string submit = "timeout -s KILL 1 " + quote(NHSIM_PATH) + " --server " + address_ +
                             " submit " + path("compile.json") + " >/dev/null 2>&1";
  (void)std::system(submit.c_str());  // killed after 1 s, in the middle of the compiles
  const std::regex abandoned(
      "submit rejected \\(CANCELLED\\): the client went away: abandoned "
      "after ([0-9]+) of 64 sweep cases were checked");
  std::smatch match;
  std::string log;
  for (int wait = 0; wait < 1000; ++wait) {  // 10 s: all 64 cases take about 16 s
    log = read_file(log_);
    if (std::regex_search(log, match, abandoned)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(match.empty()) << log;
  EXPECT_LT(std::stoi(match[1]), 64);
}

/// A run to a requested precision (`until`) over several rounds of 320 trajectories: SI-DLA's b
/// to 8 %, about 2 s on 2 threads.
constexpr const char* kUntilSpec = R"({
  "system": "chaotic_quartic",
  "parameters": {"n": 3},
  "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 5, "count": 20000}},
  "integrators": [{"integrator": "si_dla", "h": 0.05, "sample_every": 20}],
  "t_final": 1000.0,
  "until": {"targets": [{"integrator": "si_dla", "statistic": "growth_b",
                         "relative_stderr": 0.08}]},
  "label": "until"
})";

class UntilRecoveryTest : public RecoveryTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_file(dir_ / "until.json", kUntilSpec);
    const CliRun reference =
        nhsim("run " + path("until.json") + " --threads 1 --json " + path("reference.json"));
    ASSERT_EQ(reference.exit_code, 0) << reference.err;
    ASSERT_THAT(reference.out, HasSubstr("until: every precision target held"));
  }
};

TEST_F(UntilRecoveryTest, KilledMidRunItStopsAtTheSameRoundWithTheSameBits) {
  const std::string job = submit("until.json");
  const long stored = first_checkpoint(job);
  ASSERT_GT(stored, 0) << "the run ended before a checkpoint: nothing to resume";
  stop_server(SIGKILL);
  start_server();
  EXPECT_GE(resumed_from(read_file(log_), job), stored);
  expect_reference_result(job);  // the until outcome is part of the compared JSON
}

}  // namespace
}  // namespace nhsim::e2e

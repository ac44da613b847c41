// The built binaries as a user runs them: nhsimd on ephemeral ports, the nhsim CLI against it.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
}

/// Single-quoted for sh.
std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// A tiny chaotic_quartic ensemble: 4 states, rk4 and si_dla, 20 steps, sampled every 5.
constexpr const char* kTinySpec = R"({
  "system": "chaotic_quartic",
  "parameters": {"n": 3},
  "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 7, "count": 4}},
  "integrators": [
    {"integrator": "rk4", "h": 0.05, "sample_every": 5},
    {"integrator": "si_dla", "h": 0.05, "sample_every": 5}
  ],
  "t_final": 1.0,
  "label": "e2e"
})";

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nhsim-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    const std::string log = (dir_ / "nhsimd.log").string();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const std::string metrics = metrics_address();
    const char* argv[] = {NHSIMD_PATH,     "--listen",  "127.0.0.1:0", "--metrics",
                          metrics.c_str(), "--threads", "2",           nullptr};
    const int spawned = posix_spawn(&server_pid_, NHSIMD_PATH, &actions, nullptr,
                                    const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "cannot start " << NHSIMD_PATH;

    // nhsimd logs "listening on 127.0.0.1:<port>" once it serves.
    const std::regex listening("listening on (127\\.0\\.0\\.1:[0-9]+)");
    for (int attempt = 0; attempt < 3000 && address_.empty(); ++attempt) {
      std::smatch match;
      const std::string text = read_file(log);
      if (std::regex_search(text, match, listening)) {
        address_ = match[1];
        break;
      }
      int status = 0;
      ASSERT_EQ(waitpid(server_pid_, &status, WNOHANG), 0) << "nhsimd exited:\n" << text;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(address_.empty()) << "nhsimd did not report its address:\n" << read_file(log);
    write_file(dir_ / "tiny.json", kTinySpec);
  }

  /// nhsimd's --metrics. Off by default: stopping its HTTP server takes about two seconds.
  virtual std::string metrics_address() const { return ""; }

  void TearDown() override {
    if (server_pid_ > 0) {
      kill(server_pid_, SIGTERM);
      int status = 0;
      waitpid(server_pid_, &status, 0);
    }
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// Runs `nhsim --server <address> <arguments>` (arguments already quoted for sh).
  CliRun nhsim(const std::string& arguments) const {
    const fs::path out = dir_ / "stdout";
    const fs::path err = dir_ / "stderr";
    const std::string command = quote(NHSIM_PATH) + " --server " + address_ + " " + arguments +
                                " >" + quote(out.string()) + " 2>" + quote(err.string());
    const int status = std::system(command.c_str());
    CliRun run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = read_file(out);
    run.err = read_file(err);
    return run;
  }

  std::string path(const std::string& name) const { return quote((dir_ / name).string()); }

  fs::path dir_;
  pid_t server_pid_ = -1;
  std::string address_;
};

/// Parses `json` as a google.protobuf.Struct: any valid JSON object.
google::protobuf::Struct parse_json_object(const std::string& json) {
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &object);
  EXPECT_TRUE(status.ok()) << status.message() << "\n" << json;
  return object;
}

TEST_F(CliTest, SubmitWaitPrintsTheTableAndWritesJsonAndCsv) {
  const CliRun run = nhsim("submit " + path("tiny.json") + " --wait --json " + path("out/r.json") +
                           " --csv " + path("out/r.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("integrator"));
  EXPECT_THAT(run.out, HasSubstr("slope/h^4"));
  EXPECT_THAT(run.out, HasSubstr("rk4"));
  EXPECT_THAT(run.out, HasSubstr("si_dla"));

  // Valid JSON with proto (snake_case) field names.
  const std::string json = read_file(dir_ / "out" / "r.json");
  const auto result = parse_json_object(json);
  const auto& fields = result.fields();
  ASSERT_TRUE(fields.contains("n_trajectories")) << json;
  EXPECT_EQ(fields.at("n_trajectories").string_value(), "4");  // int64 is a JSON string
  EXPECT_EQ(fields.at("label").string_value(), "e2e");
  ASSERT_TRUE(fields.contains("integrators"));
  const auto& integrators = fields.at("integrators").list_value();
  ASSERT_EQ(integrators.values_size(), 2);
  const auto& first = integrators.values(0).struct_value().fields();
  EXPECT_EQ(first.at("choice").struct_value().fields().at("integrator").string_value(), "rk4");
  for (const char* key :
       {"n_steps", "sample_times", "observables", "trajectories_ok", "trajectories_failed",
        "trajectories_cancelled", "failures", "steps_completed", "steps_per_second"}) {
    EXPECT_TRUE(first.contains(key)) << key;
  }
  EXPECT_EQ(first.at("sample_times").list_value().values_size(), 5);  // t = 0, .25, .5, .75, 1
  const auto& series = first.at("observables").list_value().values(0).struct_value().fields();
  for (const char* key : {"observable", "count", "mean", "variance", "min", "max", "q05", "q50",
                          "q95", "variance_slope", "variance_slope_over_h4"}) {
    EXPECT_TRUE(series.contains(key)) << key;
  }
  EXPECT_THAT(json, Not(HasSubstr("nTrajectories")));
  EXPECT_THAT(json, Not(HasSubstr("sampleTimes")));

  // CSV: a header, then one row per (integrator, observable, sample time).
  const std::string csv = read_file(dir_ / "out" / "r.csv");
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header, "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95");
  int rows = 0;
  for (std::string line; std::getline(lines, line);) ++rows;
  int observables = first.at("observables").list_value().values_size();
  EXPECT_EQ(rows, 2 * observables * 5);
}

TEST_F(CliTest, SubmitThenWatchThenResult) {
  const CliRun submitted = nhsim("submit " + path("tiny.json"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job_id = submitted.out.substr(0, submitted.out.find('\n'));
  ASSERT_THAT(job_id, ::testing::MatchesRegex("[0-9a-f]{16}"));

  const CliRun watched = nhsim("watch " + job_id);
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_THAT(watched.err, HasSubstr("SUCCEEDED"));  // plain progress lines: not a TTY

  const CliRun result = nhsim("result " + job_id + " --json " + path("again.json"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("si_dla"));
  const auto parsed = parse_json_object(read_file(dir_ / "again.json"));
  EXPECT_EQ(parsed.fields().at("job_id").string_value(), job_id);

  const CliRun cancel = nhsim("cancel " + job_id);  // finished: nothing changes
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_THAT(cancel.out, HasSubstr("SUCCEEDED"));
}

TEST_F(CliTest, CatalogCommandsListTheSystemAndIntegrators) {
  const CliRun systems = nhsim("systems");
  EXPECT_EQ(systems.exit_code, 0) << systems.err;
  EXPECT_THAT(systems.out, HasSubstr("chaotic_quartic"));
  const CliRun integrators = nhsim("integrators");
  EXPECT_EQ(integrators.exit_code, 0) << integrators.err;
  for (const char* name : {"gonzalez", "avf", "si_dla", "rk4"}) {
    EXPECT_THAT(integrators.out, HasSubstr(name));
  }
}

TEST_F(CliTest, ErrorsExitNonZeroWithTheReason) {
  write_file(dir_ / "unknown_system.json",
             R"({"system": "pendulum", "initial_conditions": {"energy_shell": {"count": 1}},
                 "integrators": [{"integrator": "rk4", "h": 0.1}], "t_final": 1})");
  const CliRun invalid = nhsim("submit " + path("unknown_system.json"));
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_THAT(invalid.err, HasSubstr("INVALID_ARGUMENT: system: "));
  EXPECT_THAT(invalid.err, HasSubstr("chaotic_quartic"));

  write_file(dir_ / "broken.json", R"({"system": "chaotic_quartic", "t_final": })");
  const CliRun broken = nhsim("submit " + path("broken.json"));
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.err, HasSubstr((dir_ / "broken.json").string() + ": "));

  write_file(dir_ / "typo.json", R"({"system": "chaotic_quartic", "t_finale": 1})");
  const CliRun typo = nhsim("submit " + path("typo.json"));
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_THAT(typo.err, HasSubstr("t_finale"));

  const CliRun missing = nhsim("result 0123456789abcdef");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("NOT_FOUND"));
}

/// nhsimd with its metrics endpoint on, as deployed.
class CliWithMetricsTest : public CliTest {
 protected:
  std::string metrics_address() const override { return "127.0.0.1:0"; }
};

TEST_F(CliWithMetricsTest, ServerStopsCleanlyOnSigterm) {
  EXPECT_THAT(read_file(dir_ / "nhsimd.log"), HasSubstr("metrics on http://127.0.0.1:"));
  ASSERT_EQ(kill(server_pid_, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(server_pid_, &status, 0), server_pid_);
  server_pid_ = -1;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_THAT(read_file(dir_ / "nhsimd.log"), HasSubstr("stopped"));
}

}  // namespace

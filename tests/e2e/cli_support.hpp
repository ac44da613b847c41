// The e2e fixture: nhsimd started on an ephemeral loopback port and stopped by its pid, the
// nhsim CLI run against it as a user runs it, and small file helpers.
#pragma once

#include <fcntl.h>
#include <gmock/gmock.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
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
#include <vector>

extern char** environ;

namespace nhsim::e2e {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
}

/// Single-quoted for sh.
inline std::string quote(const std::string& text) {
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
inline constexpr const char* kTinySpec = R"({
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
    start_server();
    write_file(dir_ / "tiny.json", kTinySpec);
  }

  /// Starts nhsimd (its job store in dir_/store; its log in dir_/nhsimd-K.log for the K-th
  /// start, also kept in log_) and waits until it serves; sets address_ and server_pid_.
  void start_server() {
    log_ = dir_ / ("nhsimd-" + std::to_string(starts_++) + ".log");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const std::string metrics = metrics_address();
    const std::string store = (dir_ / "store").string();
    std::vector<std::string> args = {
        NHSIMD_PATH,         "--listen", "127.0.0.1:0", "--metrics", metrics,
        "--threads",         "2",        "--data-dir",  store,       "--checkpoint-seconds",
        checkpoint_seconds()};
    for (const std::string& a : extra_server_args()) args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int spawned =
        posix_spawn(&server_pid_, NHSIMD_PATH, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "cannot start " << NHSIMD_PATH;

    // nhsimd logs "listening on 127.0.0.1:<port>" once it serves.
    const std::regex listening("listening on (127\\.0\\.0\\.1:[0-9]+)");
    address_.clear();
    for (int attempt = 0; attempt < 3000 && address_.empty(); ++attempt) {
      std::smatch match;
      const std::string text = read_file(log_);
      if (std::regex_search(text, match, listening)) {
        address_ = match[1];
        break;
      }
      int status = 0;
      ASSERT_EQ(waitpid(server_pid_, &status, WNOHANG), 0) << "nhsimd exited:\n" << text;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(address_.empty()) << "nhsimd did not report its address:\n" << read_file(log_);
  }

  /// Sends `signal` to nhsimd and waits for it to exit; returns its wait status.
  int stop_server(int signal) {
    int status = 0;
    kill(server_pid_, signal);
    waitpid(server_pid_, &status, 0);
    server_pid_ = -1;
    return status;
  }

  /// nhsimd's --checkpoint-seconds.
  virtual std::string checkpoint_seconds() const { return "1"; }

  /// More nhsimd options.
  virtual std::vector<std::string> extra_server_args() const { return {}; }

  /// nhsimd's --metrics. Off by default: stopping its HTTP server takes about two seconds.
  virtual std::string metrics_address() const { return ""; }

  void TearDown() override {
    if (server_pid_ > 0) stop_server(SIGTERM);
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
  fs::path log_;
  int starts_ = 0;
  pid_t server_pid_ = -1;
  std::string address_;
};

/// Parses `json` as a google.protobuf.Struct: any valid JSON object.
inline google::protobuf::Struct parse_json_object(const std::string& json) {
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &object);
  EXPECT_TRUE(status.ok()) << status.message() << "\n" << json;
  return object;
}

/// `result` (a result's JSON object, or a sweep case's) without what may differ between runs of
/// the same spec: the timings, also a sweep's cases', and the job id.
inline google::protobuf::Struct without_timings(google::protobuf::Struct result) {
  auto& fields = *result.mutable_fields();
  fields.erase("job_id");
  if (fields.contains("integrators")) {
    for (auto& integrator : *fields.at("integrators").mutable_list_value()->mutable_values()) {
      integrator.mutable_struct_value()->mutable_fields()->erase("wall_seconds");
      integrator.mutable_struct_value()->mutable_fields()->erase("steps_per_second");
    }
  }
  if (fields.contains("cases")) {
    for (auto& sweep_case : *fields.at("cases").mutable_list_value()->mutable_values()) {
      auto& case_result = sweep_case.mutable_struct_value()->mutable_fields()->at("result");
      *case_result.mutable_struct_value() = without_timings(case_result.struct_value());
    }
  }
  return result;
}

/// A result file's statistics: the result without what may differ between runs of the same
/// spec (without_timings()).
inline google::protobuf::Struct statistics_of(const std::string& json) {
  return without_timings(parse_json_object(json));
}

/// Equal results (numbers compared as the JSON's shortest round-trip decimals, so bit for bit).
inline ::testing::AssertionResult same_statistics(const google::protobuf::Struct& a,
                                                  const google::protobuf::Struct& b) {
  google::protobuf::util::MessageDifferencer differencer;
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  if (differencer.Compare(a, b)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differences.substr(0, 2000);
}

}  // namespace nhsim::e2e

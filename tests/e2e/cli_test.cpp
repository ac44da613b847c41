// The built binaries as a user runs them: nhsimd on ephemeral ports, the nhsim CLI against it.
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"

namespace nhsim::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(CliTest, SubmitWaitPrintsTheTableAndWritesJsonAndCsv) {
  const CliRun run = nhsim("submit " + path("tiny.json") + " --wait --json " + path("out/r.json") +
                           " --csv " + path("out/r.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("integrator"));
  EXPECT_THAT(run.out, HasSubstr("b/h^4"));
  EXPECT_THAT(run.out, HasSubstr("rk4"));
  EXPECT_THAT(run.out, HasSubstr("si_dla"));

  // Valid JSON with proto (snake_case) field names.
  const std::string json = read_file(dir_ / "out" / "r.json");
  const auto result = parse_json_object(json);
  const auto& fields = result.fields();
  ASSERT_TRUE(fields.contains("n_trajectories")) << json;
  // Counts are JSON numbers, not the protobuf JSON mapping's int64 strings.
  EXPECT_EQ(fields.at("n_trajectories").number_value(), 4.0) << json;
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
                          "q95", "variance_slope", "variance_slope_over_h4", "mean_stderr",
                          "variance_stderr", "q50_lower", "q50_upper", "variance_growth"}) {
    EXPECT_TRUE(series.contains(key)) << key;
  }
  EXPECT_THAT(json, Not(HasSubstr("nTrajectories")));
  EXPECT_THAT(json, Not(HasSubstr("sampleTimes")));

  // CSV: a header, then one row per (integrator, observable, sample time).
  const std::string csv = read_file(dir_ / "out" / "r.csv");
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header,
            "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,mean_stderr,"
            "variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,q95_upper,"
            "variance_lower,variance_upper");
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    // Shortest round-trip decimals: h as 0.05, not 0.050000000000000003.
    if (rows++ == 0) {
      EXPECT_THAT(line, ::testing::StartsWith("0,rk4,0.05,")) << line;
    }
  }
  int observables = first.at("observables").list_value().values_size();
  EXPECT_EQ(rows, 2 * observables * 5);
}

TEST_F(CliTest, SubmitThenWatchThenResult) {
  const CliRun submitted = nhsim("submit " + path("tiny.json"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job_id = submitted.out.substr(0, submitted.out.find('\n'));
  ASSERT_THAT(job_id, ::testing::MatchesRegex("[0-9a-f]{32}"));

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

TEST_F(CliTest, OutputJsonPrintsTheProtobufJsonOfEveryAnswer) {
  const CliRun submitted = nhsim("--output json submit " + path("tiny.json"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const auto job = parse_json_object(submitted.out);
  const std::string job_id = job.fields().at("job_id").string_value();
  EXPECT_EQ(job.fields().at("state").string_value(), "QUEUED");

  const CliRun watched = nhsim("--output json watch " + job_id);
  ASSERT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_EQ(parse_json_object(watched.out).fields().at("state").string_value(), "SUCCEEDED");

  const CliRun result = nhsim("--output json result " + job_id);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(parse_json_object(result.out).fields().at("integrators").list_value().values_size(), 2);

  const CliRun jobs = nhsim("--output json jobs");
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_EQ(parse_json_object(jobs.out).fields().at("jobs").list_value().values_size(), 1);

  const CliRun systems = nhsim("--output json systems");
  ASSERT_EQ(systems.exit_code, 0) << systems.err;
  EXPECT_GT(parse_json_object(systems.out).fields().at("systems").list_value().values_size(), 5);

  const CliRun refused = nhsim("--output json convergence " + path("any.json"));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("--output json does not apply to convergence"));
}

TEST_F(CliTest, CatalogueCommandsListTheSystemAndIntegrators) {
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

// Issue 61 item 5: usage errors exit 1 (CLI11's own codes, 106 for a missing subcommand, were
// outside the documented 0/1/2), and a mistyped command names the nearest one.
TEST_F(CliTest, UsageErrorsExitOneAndSuggestTheCommand) {
  const CliRun list = nhsim("list");
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_THAT(list.err, HasSubstr("unknown command 'list'; did you mean 'jobs'?"));
  const CliRun typo = nhsim("sumbit x.json");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_THAT(typo.err, HasSubstr("did you mean 'submit'?"));
  EXPECT_EQ(nhsim("").exit_code, 1);
  EXPECT_EQ(nhsim("submit --no-such-flag x.json").exit_code, 1);
  EXPECT_EQ(nhsim("--help").exit_code, 0);
}

// Issue 61 item 5: a mistyped spec field got protobuf's "Cannot find field" alone; the CLI names
// the nearest field of the message at that path, and nothing for a word near none.
TEST_F(CliTest, AMistypedSpecFieldNamesTheNearestField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"system": "chaotic_quartic", "t_finall": 1})",
       "t_finall: Cannot find field; did you mean 't_final'?"},
      {R"({"system": "chaotic_quartic", "integrators": [{"integrator": "rk4", "hh": 0.1}]})",
       "(integrators[0]) hh: Cannot find field; did you mean 'h'?"},
      {R"({"system": "chaotic_quartic", "initial_conditions": {"energy_shel": {"energy": 1}}})",
       "(initial_conditions) energy_shel: Cannot find field; did you mean 'energy_shell'?"},
      {R"({"system": "chaotic_quartic", "initialConditions": {"energyShell": {"energie": 1}}})",
       "(initial_conditions.energy_shell) energie: Cannot find field; did you mean 'energy'?"},
      {R"({"system": "chaotic_quartic", "colour": "red"})", "colour: Cannot find field."}};
  for (const auto& [spec, message] : cases) {
    write_file(dir_ / "typo.json", spec);
    const CliRun run = nhsim("run " + path("typo.json"));
    EXPECT_EQ(run.exit_code, 1) << spec;
    EXPECT_THAT(run.err, HasSubstr("JSON spec: " + message + "\n")) << spec;
  }
}

// Issue 49: a 100 MB spec was refused by gRPC's size limit after its transfer, without naming
// the size. The CLI refuses a request over --max-message-mb (nhsimd's default 64) before sending
// it, naming its size and the limit; nothing reaches the server.
TEST_F(CliTest, ASpecOverTheMessageLimitIsRefusedBeforeItIsSent) {
  write_file(dir_ / "big.json",
             R"({"system": "chaotic_quartic", "label": ")" + std::string(3 << 20, 'x') +
                 R"(", "initial_conditions": {"energy_shell": {"energy": 3.06, "count": 2}},
                 "integrators": [{"integrator": "rk4", "h": 0.1}], "t_final": 1})");
  const CliRun refused = nhsim("--max-message-mb 2 submit " + path("big.json"));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("the request is 3.0 MiB, more than --max-message-mb=2"));
  EXPECT_THAT(nhsim("--output json jobs").out, Not(HasSubstr("job_id")));  // nothing was sent
  // Under a larger limit it is sent, and the server refuses its label.
  const CliRun sent = nhsim("--max-message-mb 4 submit " + path("big.json"));
  EXPECT_EQ(sent.exit_code, 1);
  EXPECT_THAT(sent.err, HasSubstr("label: 3145728 bytes, more than this server takes (1024)"));
}

// Issue 47 item 8: `nhsim submit -` reads the spec from standard input.
TEST_F(CliTest, SubmitDashReadsTheSpecFromStandardInput) {
  const CliRun run = nhsim("submit - --wait < " + path("tiny.json"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("si_dla"));
  write_file(dir_ / "broken.json", R"({"system": )");
  const CliRun broken = nhsim("submit - < " + path("broken.json"));
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.err, HasSubstr("standard input: not a valid"));
}

// Issue 47 item 8: `nhsim jobs` showed neither system, label nor age.
TEST_F(CliTest, JobsShowSystemLabelStateAndAge) {
  ASSERT_EQ(nhsim("submit --wait " + path("tiny.json")).exit_code, 0);
  const CliRun jobs = nhsim("jobs");
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_THAT(jobs.out, ::testing::StartsWith("job "));
  EXPECT_THAT(jobs.out, ::testing::ContainsRegex("state +done +system +age +label\n"));
  EXPECT_THAT(jobs.out, ::testing::ContainsRegex(
                            "[0-9a-f]{32}  SUCCEEDED +8/8  chaotic_quartic +[0-9]+s  e2e\n"));
}

// Issue 47 items 6 and 8: a spec tracking relative_energy_error and constraint_residual showed
// "-" in every accuracy column, one trajectory "0.000e+00?" and a note per row, a long integrator
// name shifted its row; `nhsim run` progress did not name the run.
TEST_F(CliTest, RunNamesItsProgressAndShowsTheAccuracyTheSpecTracks) {
  write_file(dir_ / "sleigh.json", R"({
    "system": "chaplygin_sleigh_com", "parameters": {"I": 1, "m": 1, "a": 1},
    "initial_conditions": {"states": [{"q": [0, 0, 0], "p": [0.5, -1, 0.5]}]},
    "integrators": [{"integrator": "nh_rattle_projected", "h": 0.1, "sample_every": 1},
                    {"integrator": "rk2", "h": 0.1, "sample_every": 1}],
    "t_final": 2, "observables": ["x_s", "relative_energy_error", "constraint_residual"]})");
  const CliRun run = nhsim("run " + path("sleigh.json"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("run sleigh.json RUNNING"));
  std::istringstream lines(run.out);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_EQ(all.size(), 3U) << run.out;  // header and two rows, no notes
  EXPECT_THAT(all[0], ::testing::MatchesRegex(
                          "integrator +h +ok +failed +steps/s +max\\|H/H0-1\\| +final var +b/h\\^4 "
                          "+\\+- SE +max resid"));
  const std::string number = "[0-9]\\.[0-9]{3}e[-+][0-9]{2}";
  EXPECT_THAT(all[1], ::testing::MatchesRegex("nh_rattle_projected +0\\.1 +1 +0 +" + number + " +" +
                                              number + " +- +- +- +" + number))
      << all[1];
  EXPECT_THAT(all[2], ::testing::StartsWith("rk2 "));
  EXPECT_EQ(all[1].size(), all[0].size());
  EXPECT_EQ(all[2].size(), all[0].size());
  EXPECT_THAT(run.out, Not(HasSubstr("?")));
}

// Issue 47 item 5: a sweep of 2 x 2 cases is one job, one table, one long CSV, and each case's
// result is the separate job's, bit for bit.
TEST_F(CliTest, ASweepIsOneJobWhoseCasesAreTheSeparateJobsBitForBit) {
  std::string spec = kTinySpec;
  const std::string sweep =
      R"(,
  "sweep": [{"parameters.n": [2, 3]}, {"h": [0.1, 0.05], "sample_every": [5, 10]}]
})";
  spec.replace(spec.rfind('}'), 1, sweep);
  write_file(dir_ / "sweep.json", spec);
  const CliRun run = nhsim("submit " + path("sweep.json") + " --wait --json " +
                           path("sweep-result.json") + " --csv " + path("sweep.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // 4 trajectories x 2 choices x 4 cases, all done (the job counted a sweep's result as none).
  EXPECT_THAT(nhsim("jobs").out, ::testing::ContainsRegex("SUCCEEDED +32/32 "));
  std::istringstream lines(run.out);
  std::vector<std::string> table;
  for (std::string line; std::getline(lines, line);) table.push_back(line);
  ASSERT_GE(table.size(), 9U) << run.out;  // header, 4 cases x 2 choices
  EXPECT_THAT(table[0],
              ::testing::MatchesRegex("parameters\\.n +h +sample_every +integrator +h +ok.*"));
  EXPECT_THAT(table[1], ::testing::MatchesRegex(" *2 +0\\.1 +5 +rk4 +0\\.1 +4 .*")) << run.out;
  EXPECT_THAT(table[2], ::testing::MatchesRegex(" +si_dla +0\\.1 +4 .*")) << run.out;
  EXPECT_THAT(table[7], ::testing::MatchesRegex(" *3 +0\\.05 +10 +rk4 +0\\.05 +4 .*")) << run.out;

  const std::string csv = read_file(dir_ / "sweep.csv");
  EXPECT_THAT(csv, ::testing::StartsWith("case,parameters.n,sample_every,choice,integrator,h,"
                                         "observable,t,count,"));
  EXPECT_THAT(csv, HasSubstr("\n3,3,10,1,si_dla,0.05,energy_error,1,4,"));
  // 4 cases x 2 choices x 3 observables x 3 sample times, and the header
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 73);

  const auto result = parse_json_object(read_file(dir_ / "sweep-result.json"));
  const auto& cases = result.fields().at("cases").list_value();
  ASSERT_EQ(cases.values_size(), 4);
  EXPECT_FALSE(result.fields().contains("integrators") &&
               result.fields().at("integrators").list_value().values_size() > 0);
  int k = 0;
  for (const char* n : {"2", "3"}) {
    for (const auto& [h, every] : {std::pair{"0.1", "5"}, std::pair{"0.05", "10"}}) {
      std::string alone = kTinySpec;
      alone.replace(alone.find(R"("n": 3)"), 6, std::string(R"("n": )") + n);
      const std::string choice = R"("h": 0.05, "sample_every": 5)";
      for (std::size_t at = alone.find(choice); at != std::string::npos;
           at = alone.find(choice, at + 1)) {
        alone.replace(at, choice.size(),
                      std::string(R"("h": )") + h + R"(, "sample_every": )" + every);
      }
      const std::string name = "case" + std::to_string(k) + ".json";
      write_file(dir_ / name, alone);
      const CliRun separate = nhsim("submit " + path(name) + " --wait --json " + path("r-" + name));
      ASSERT_EQ(separate.exit_code, 0) << separate.err << alone;
      const auto& sweep_case = cases.values(k).struct_value().fields();
      EXPECT_EQ(sweep_case.at("values")
                    .list_value()
                    .values(0)
                    .struct_value()
                    .fields()
                    .at("field")
                    .string_value(),
                "parameters.n");
      // The job's label and the case's (none) aside, the same statistics.
      google::protobuf::Struct separate_result = statistics_of(read_file(dir_ / ("r-" + name)));
      google::protobuf::Struct in_sweep = without_timings(sweep_case.at("result").struct_value());
      separate_result.mutable_fields()->erase("label");
      in_sweep.mutable_fields()->erase("label");
      EXPECT_TRUE(same_statistics(in_sweep, separate_result)) << "case " << k;
      ++k;
    }
  }
}

/// nhsimd with its metrics endpoint on, as deployed.
class CliWithMetricsTest : public CliTest {
 protected:
  std::string metrics_address() const override { return "127.0.0.1:0"; }
};

TEST_F(CliWithMetricsTest, ServerStopsCleanlyOnSigterm) {
  EXPECT_THAT(read_file(log_), HasSubstr("metrics on http://127.0.0.1:"));
  ASSERT_EQ(kill(server_pid_, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(server_pid_, &status, 0), server_pid_);
  server_pid_ = -1;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_THAT(read_file(log_), HasSubstr("stopped"));
}

/// nhsimd with a tokens file holding alice's token; bob's token is made but not in the file.
class CliWithTokensTest : public CliTest {
 protected:
  CliWithTokensTest() {
    char pattern[] = "/tmp/nhsim-e2e-tokens-XXXXXX";
    EXPECT_NE(mkdtemp(pattern), nullptr);
    tokens_dir_ = pattern;
    alice_ = make_token("alice", tokens_file());
    bob_ = make_token("bob", tokens_dir_ / "bob.line");
  }
  ~CliWithTokensTest() override {
    std::error_code ignored;
    fs::remove_all(tokens_dir_, ignored);
  }
  std::vector<std::string> extra_server_args() const override {
    return {"--tokens-file", tokens_file().string()};
  }
  fs::path tokens_file() const { return tokens_dir_ / "tokens"; }

  /// `nhsim token IDENTITY --append FILE`: the token it prints.
  std::string make_token(const std::string& identity, const fs::path& file) const {
    const fs::path out = tokens_dir_ / (identity + ".token");
    const std::string command = quote(NHSIM_PATH) + " token " + identity + " --append " +
                                quote(file.string()) + " >" + quote(out.string()) + " 2>/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0);
    std::string token = read_file(out);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
      token.pop_back();
    }
    return token;
  }
  fs::path tokens_dir_;
  std::string alice_, bob_;
};

// Issue 49 item 15: SIGHUP killed nhsimd (exit 129). It reloads the tokens file: a token added
// and one removed take effect, and a job running meanwhile carries on.
TEST_F(CliWithTokensTest, SighupReloadsTheTokensFileWithoutDroppingJobs) {
  const auto as = [&](const std::string& token, const std::string& arguments) {
    write_file(dir_ / "token", token + "\n");
    return nhsim("--token-file " + path("token") + " " + arguments);
  };
  ASSERT_EQ(as(alice_, "jobs").exit_code, 0) << as(alice_, "jobs").err;
  EXPECT_THAT(as(bob_, "jobs").err, HasSubstr("UNAUTHENTICATED"));
  const CliRun submitted = as(alice_, "submit " + path("tiny.json"));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job = submitted.out.substr(0, submitted.out.find('\n'));

  // bob's line replaces alice's.
  write_file(tokens_file(), read_file(tokens_dir_ / "bob.line"));
  ASSERT_EQ(kill(server_pid_, SIGHUP), 0);
  bool reloaded = false;
  for (int i = 0; i < 500 && !reloaded; ++i) {
    reloaded = read_file(log_).find("reloaded: 1 tokens") != std::string::npos;
    if (!reloaded) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(reloaded) << read_file(log_);
  EXPECT_EQ(as(bob_, "jobs").exit_code, 0);
  EXPECT_THAT(as(alice_, "jobs").err, HasSubstr("UNAUTHENTICATED"));
  int status = 0;
  EXPECT_EQ(waitpid(server_pid_, &status, WNOHANG), 0) << "nhsimd exited on SIGHUP";

  // A malformed file is not taken: the tokens in force stay.
  write_file(tokens_file(), "not a token line\n");
  ASSERT_EQ(kill(server_pid_, SIGHUP), 0);
  bool refused = false;
  for (int i = 0; i < 500 && !refused; ++i) {
    refused = read_file(log_).find("tokens not reloaded") != std::string::npos;
    if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(refused) << read_file(log_);
  const CliRun after = as(bob_, "submit --wait " + path("tiny.json"));
  EXPECT_EQ(after.exit_code, 0) << after.err;  // still serving, and running jobs
  EXPECT_THAT(read_file(log_), ::testing::ContainsRegex("job " + job + " (SUCCEEDED|succeeded)"));
}

}  // namespace
}  // namespace nhsim::e2e

// nhsimd's memory: a job's peak stays within the documented bound of its admitted estimate, and
// resident memory returns to its baseline once a job ends and once the jobs that held large
// statistics and results are evicted (admission control).
#include <regex>
#include <string>

#include "cli_support.hpp"

namespace nhsim::e2e {
namespace {

/// A field of /proc/<pid>/status in KiB (VmRSS, VmHWM), -1 if absent.
long status_kib(pid_t pid, const std::string& field) {
  std::istringstream status(read_file("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

class EvictionTest : public CliTest {
 protected:
  std::vector<std::string> extra_server_args() const override {
    return {"--keep-finished-for", "2s"};
  }

  /// Runs `spec_file` to its end, then waits until the server has evicted it.
  void run_and_wait_for_eviction(const std::string& spec_file) {
    const CliRun submit = nhsim("submit " + path(spec_file) + " --wait");
    ASSERT_EQ(submit.exit_code, 0) << submit.err;
    for (int attempt = 0; attempt < 100; ++attempt) {
      const CliRun jobs = nhsim("jobs");
      ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
      if (jobs.out.empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "jobs not evicted within 10 s of their retention period";
  }
};

TEST_F(EvictionTest, MemoryReturnsToItsBaselineAfterLargeJobsAreEvicted) {
  run_and_wait_for_eviction("tiny.json");  // warms up the server's pools
  const long baseline = status_kib(server_pid_, "VmRSS");
  // 8 trajectories sampled at every one of 20000 steps: about 150 MiB of statistics while it
  // runs (2.4 kB a cell) and a result of tens of MiB, stored and kept until evicted.
  write_file(dir_ / "large.json", R"({
    "system": "chaotic_quartic",
    "parameters": {"n": 3},
    "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 7, "count": 8}},
    "integrators": [{"integrator": "rk4", "h": 0.01, "sample_every": 1}],
    "t_final": 200.0
  })");
  run_and_wait_for_eviction("large.json");
  const long peak = status_kib(server_pid_, "VmHWM");
  const long after = status_kib(server_pid_, "VmRSS");
  RecordProperty("rss_baseline_kib", std::to_string(baseline));
  RecordProperty("rss_peak_kib", std::to_string(peak));
  RecordProperty("rss_after_eviction_kib", std::to_string(after));
  EXPECT_GT(peak, baseline + 100 * 1024) << "the large job did not use the memory it should: peak "
                                         << peak << " KiB, baseline " << baseline << " KiB";
  EXPECT_LT(after, baseline + 32 * 1024) << "RSS " << baseline << " KiB before, " << peak
                                         << " KiB at the peak, " << after << " KiB after eviction";
}

// Issue 49 item 3: a job with outputs estimated at about 720 MiB peaked at 2680 MiB and left
// 1303 MiB behind. The admitted estimate counts the outputs' copies (kOutputCopies), the peak
// stays under 1.5 x the estimate + 64 MiB (docs/operations.md), and the memory is given back.
TEST_F(EvictionTest, AJobWithOutputsPeaksWithinTheBoundOfItsEstimateAndGivesItBack) {
  run_and_wait_for_eviction("tiny.json");
  const long baseline = status_kib(server_pid_, "VmRSS");
  // 400 trajectories with their states at 2001 sample times: about 100 MiB of values.
  write_file(dir_ / "outputs.json", R"({
    "system": "chaotic_quartic",
    "parameters": {"n": 3},
    "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 1, "count": 400}},
    "integrators": [{"integrator": "rk4", "h": 0.05, "sample_every": 10}],
    "t_final": 1000.0,
    "outputs": {"sampled": {"all": true}, "sampled_state": true}
  })");
  // Followed to its end without reading its result: the result (90 MB) can take longer to read
  // under load than the 2 s that the job is kept.
  const CliRun submit = nhsim("submit " + path("outputs.json"));
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const CliRun watch = nhsim("watch " + submit.out.substr(0, submit.out.find('\n')));
  ASSERT_EQ(watch.exit_code, 0) << watch.err;
  ASSERT_THAT(watch.err, ::testing::HasSubstr("SUCCEEDED")) << watch.out;
  const std::string log = read_file(log_);
  const std::regex estimate_field("memory_estimate_mib=(\\d+)");
  long estimate_kib = -1;  // the last job's: this one's
  for (auto it = std::sregex_iterator(log.begin(), log.end(), estimate_field);
       it != std::sregex_iterator(); ++it) {
    estimate_kib = std::stol((*it)[1]) * 1024;
  }
  ASSERT_GT(estimate_kib, 0) << log;
  const long peak = status_kib(server_pid_, "VmHWM");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long after = status_kib(server_pid_, "VmRSS");
  RecordProperty("memory_estimate_kib", std::to_string(estimate_kib));
  RecordProperty("rss_peak_kib", std::to_string(peak));
  RecordProperty("rss_after_kib", std::to_string(after));
  EXPECT_GT(peak, baseline + 100 * 1024) << "the job did not hold its outputs";
  EXPECT_LT(peak, 3 * estimate_kib / 2 + 64 * 1024) << "estimate " << estimate_kib << " KiB";
  EXPECT_LT(after, baseline + 64 * 1024)
      << "RSS " << baseline << " KiB before, " << peak << " KiB at the peak, " << after
      << " KiB after the job (its result is in the store, not in memory)";
}

}  // namespace
}  // namespace nhsim::e2e

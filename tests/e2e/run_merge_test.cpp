// `nhsim run` and `nhsim merge` as a user (or a Slurm task) runs them: shards of any split,
// merged in any order and grouping, give the server's result bit for bit; what does not belong
// together is refused with exit status 1 and the reason; memory does not grow with the
// trajectory count.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "nhsim/v1/partial_result.pb.h"
#include "nhsim/wire/part_file.hpp"

namespace nhsim::e2e {
namespace {

using ::testing::HasSubstr;

/// An implicit and an explicit integrator on 30 energy-shell states of the chaotic quartic.
constexpr const char* kShardSpec = R"({
  "system": "chaotic_quartic",
  "parameters": {"n": 3},
  "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 11, "count": 30}},
  "integrators": [
    {"integrator": "gonzalez", "h": 0.05, "sample_every": 4},
    {"integrator": "si_dla", "h": 0.05, "sample_every": 4}
  ],
  "t_final": 2.0,
  "label": "shards"
})";

class RunMergeTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_file(dir_ / "shards.json", kShardSpec);
  }

  /// Runs `nhsim <arguments>`, expecting success.
  void ok(const std::string& arguments) const {
    const CliRun run = nhsim(arguments);
    ASSERT_EQ(run.exit_code, 0) << arguments << "\n" << run.err;
  }

  /// kShardSpec with its label replaced by `fields` (a label and more), as file `name`.
  void write_variant(const std::string& name, const std::string& fields) const {
    std::string spec = kShardSpec;
    const std::string label = "\"label\": \"shards\"";
    spec.replace(spec.find(label), label.size(), fields);
    write_file(dir_ / name, spec);
  }

  /// The statistics of result file `name` in the test directory.
  google::protobuf::Struct statistics(const std::string& name) const {
    return statistics_of(read_file(dir_ / name));
  }
};

TEST_F(RunMergeTest, WholeLocalRunEqualsTheServersResult) {
  ok("submit " + path("shards.json") + " --wait --json " + path("server.json"));
  const CliRun local = nhsim("run " + path("shards.json") + " --threads 2 --json " +
                             path("local.json") + " --csv " + path("local.csv"));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_THAT(local.out, HasSubstr("gonzalez"));  // the summary table
  EXPECT_TRUE(same_statistics(statistics("local.json"), statistics("server.json")));
  EXPECT_THAT(read_file(dir_ / "local.csv"), HasSubstr("choice,integrator,h,observable,t"));
  EXPECT_EQ(parse_json_object(read_file(dir_ / "local.json")).fields().at("label").string_value(),
            "shards");
}

TEST_F(RunMergeTest, ARunToARequestedPrecisionRunsWholeAndRefusesShards) {
  write_variant("until.json",
                "\"label\": \"until\", \"until\": {\"targets\": [{\"integrator\": "
                "\"si_dla\", \"statistic\": \"final_mean\", \"relative_stderr\": 0.5}]}");
  ok("submit " + path("until.json") + " --wait --json " + path("server.json"));
  const CliRun local = nhsim("run " + path("until.json") + " --json " + path("local.json"));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_THAT(local.out, HasSubstr("until: "));
  EXPECT_TRUE(same_statistics(statistics("local.json"), statistics("server.json")));
  for (const char* split :
       {"--shard 0/2 --out p0.pb", "--trajectories 0:10 --out p.pb", "--out whole.pb"}) {
    const CliRun refused = nhsim("run " + path("until.json") + " " + split);
    EXPECT_EQ(refused.exit_code, 1) << split;
    EXPECT_THAT(refused.err, HasSubstr("until: a run to a requested precision")) << split;
  }
}

TEST_F(RunMergeTest, ShardsOfAnySplitMergedInAnyOrderEqualTheWholeRun) {
  ok("run " + path("shards.json") + " --threads 2 --json " + path("whole.json"));
  const google::protobuf::Struct whole = statistics("whole.json");

  // Three even shards, merged back to front.
  for (int i = 0; i < 3; ++i) {
    ok("run " + path("shards.json") + " --shard " + std::to_string(i) + "/3 --out " +
       path("even" + std::to_string(i) + ".pb"));
  }
  ok("merge " + path("even2.pb") + " " + path("even0.pb") + " " + path("even1.pb") + " --json " +
     path("even.json"));
  EXPECT_TRUE(same_statistics(statistics("even.json"), whole));

  // Seven uneven ranges (1, 2 and 13 trajectories among them), merged as a tree: pairs into
  // partials (--out), then the partials in another order.
  const std::vector<std::string> cuts = {"0", "1", "3", "4", "17", "20", "29", "30"};
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    ok("run " + path("shards.json") + " --threads 1 --trajectories " + cuts[k] + ":" + cuts[k + 1] +
       " --out " + path("u" + std::to_string(k) + ".pb"));
  }
  ok("merge " + path("u5.pb") + " " + path("u0.pb") + " --out " + path("a.pb"));
  ok("merge " + path("u3.pb") + " " + path("u6.pb") + " " + path("u1.pb") + " --out " +
     path("b.pb"));
  ok("merge " + path("u4.pb") + " " + path("u2.pb") + " --out " + path("c.pb"));
  ok("merge " + path("c.pb") + " " + path("a.pb") + " " + path("b.pb") + " --json " +
     path("tree.json"));
  EXPECT_TRUE(same_statistics(statistics("tree.json"), whole));
}

// A sweep's shards hold every case's choices: any split, merged, gives the whole sweep's bits.
TEST_F(RunMergeTest, ShardsOfASweepMergeToTheWholeSweep) {
  write_variant("sweep.json",
                "\"label\": \"sweep\", \"sweep\": [{\"parameters.n\": [2, 3]}, "
                "{\"integrators[1].h\": [0.05, 0.1]}]");
  ok("run " + path("sweep.json") + " --threads 2 --json " + path("whole.json"));
  for (int i = 0; i < 3; ++i) {
    ok("run " + path("sweep.json") + " --shard " + std::to_string(i) + "/3 --out " +
       path("s" + std::to_string(i) + ".pb"));
  }
  ok("merge " + path("s2.pb") + " " + path("s0.pb") + " " + path("s1.pb") + " --json " +
     path("merged.json"));
  const google::protobuf::Struct whole = statistics("whole.json");
  ASSERT_EQ(whole.fields().at("cases").list_value().values_size(), 4);
  EXPECT_TRUE(same_statistics(statistics("merged.json"), whole));
}

// An output that cannot be written is refused before the run (`nhsim run --shard ...
// --out` into an unwritable place computed the whole shard first). The test runs as root, for
// whom permissions do not hold: the output's parent is a regular file.
TEST_F(RunMergeTest, AnUnwritableOutputIsRefusedBeforeAnyTrajectoryRuns) {
  write_file(dir_ / "a-file", "not a directory");
  const std::string unwritable = path("a-file") + "/sub/part";  // quoted for the shell
  const std::string named = (dir_ / "a-file" / "sub" / "part").string();
  for (const std::string& options :
       {"--shard 0/2 --out " + unwritable + ".pb", "--json " + unwritable + ".json",
        "--csv " + unwritable + ".csv", "--out " + path("fine.pb") + " --json " + unwritable}) {
    const CliRun run = nhsim("run " + path("shards.json") + " " + options);
    EXPECT_EQ(run.exit_code, 1) << options;
    EXPECT_THAT(run.err, HasSubstr(named)) << options;
    EXPECT_THAT(run.err, HasSubstr("cannot")) << options;
    EXPECT_THAT(run.err, ::testing::Not(HasSubstr("RUNNING"))) << options << ": it ran first";
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "fine.pb"));
}

TEST_F(RunMergeTest, WhatDoesNotBelongTogetherIsRefusedWithTheReason) {
  ok("run " + path("shards.json") + " --trajectories 0:10 --out " + path("first.pb"));
  ok("run " + path("shards.json") + " --trajectories 20:30 --out " + path("last.pb"));

  const CliRun missing =
      nhsim("merge " + path("first.pb") + " " + path("last.pb") + " --json " + path("never.json"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("missing trajectories [10, 20) of 30"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never.json"));
  // With nothing to write, the merge names every missing range and what to do.
  const CliRun nothing_to_write = nhsim("merge " + path("first.pb") + " " + path("last.pb"));
  EXPECT_EQ(nothing_to_write.exit_code, 1);
  EXPECT_THAT(nothing_to_write.err, HasSubstr("missing trajectories [10, 20) of 30"));
  EXPECT_THAT(nothing_to_write.err, HasSubstr("give --out PART"));
  ok("run " + path("shards.json") + " --trajectories 10:20 --out " + path("middle.pb"));
  const CliRun two_gaps = nhsim("merge " + path("middle.pb"));
  EXPECT_EQ(two_gaps.exit_code, 1);
  EXPECT_THAT(two_gaps.err, HasSubstr("missing trajectories [0, 10), [20, 30) of 30"));

  ok("run " + path("shards.json") + " --trajectories 5:15 --out " + path("overlap.pb"));
  const CliRun overlap =
      nhsim("merge " + path("first.pb") + " " + path("overlap.pb") + " --out " + path("never.pb"));
  EXPECT_EQ(overlap.exit_code, 1);
  EXPECT_THAT(overlap.err, HasSubstr("overlap"));
  EXPECT_THAT(overlap.err, HasSubstr("overlap.pb"));  // names the file

  std::string other = kShardSpec;
  other.replace(other.find("\"seed\": 11"), 10, "\"seed\": 12");
  write_file(dir_ / "other.json", other);
  ok("run " + path("other.json") + " --trajectories 10:20 --out " + path("other.pb"));
  const CliRun different =
      nhsim("merge " + path("first.pb") + " " + path("other.pb") + " --out " + path("never.pb"));
  EXPECT_EQ(different.exit_code, 1);
  EXPECT_THAT(different.err, HasSubstr("different specs"));

  // A damaged file: one byte of the spec's label changed.
  std::string bytes = read_file(dir_ / "first.pb");
  const std::size_t label = bytes.find("shards");
  ASSERT_NE(label, std::string::npos);
  bytes[label] = 'S';
  write_file(dir_ / "damaged.pb", bytes);
  const CliRun damaged =
      nhsim("merge " + path("damaged.pb") + " " + path("last.pb") + " --out " + path("never.pb"));
  EXPECT_EQ(damaged.exit_code, 1);
  EXPECT_THAT(damaged.err, HasSubstr("damaged.pb: damaged (its content_sha256"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never.pb"));

  const CliRun bad_shard =
      nhsim("run " + path("shards.json") + " --shard 3/3 --out " + path("never.pb"));
  EXPECT_EQ(bad_shard.exit_code, 1);
  EXPECT_THAT(bad_shard.err, HasSubstr("--shard: \"3/3\""));
  const CliRun beyond =
      nhsim("run " + path("shards.json") + " --trajectories 20:31 --out " + path("never.pb"));
  EXPECT_EQ(beyond.exit_code, 1);
  EXPECT_THAT(beyond.err, HasSubstr("--trajectories"));
  const CliRun shard_json =
      nhsim("run " + path("shards.json") + " --shard 0/2 --json " + path("never.json"));
  EXPECT_EQ(shard_json.exit_code, 1);
  EXPECT_THAT(shard_json.err, HasSubstr("nhsim merge"));
}

// Issue 49 item 19: 20 random bit flips in a 7.3 MB part went unnoticed, and 4 of them changed
// the merged result. Every flipped bit is now refused, naming the file.
TEST_F(RunMergeTest, EveryFlippedBitOfAPartIsRefused) {
  ok("run " + path("shards.json") + " --trajectories 0:15 --out " + path("first.pb"));
  ok("run " + path("shards.json") + " --trajectories 15:30 --out " + path("last.pb"));
  const std::string bytes = read_file(dir_ / "first.pb");
  std::mt19937_64 random(19);
  for (int k = 0; k < 20; ++k) {
    std::string damaged = bytes;
    const std::uint64_t bit = random() % (8 * bytes.size());
    damaged[bit / 8] = static_cast<char>(damaged[bit / 8] ^ (1 << (bit % 8)));
    write_file(dir_ / "flipped.pb", damaged);
    const CliRun merge = nhsim("merge " + path("flipped.pb") + " " + path("last.pb") + " --json " +
                               path("never.json"));
    EXPECT_EQ(merge.exit_code, 1) << "bit " << bit << " of " << 8 * bytes.size();
    EXPECT_THAT(merge.err, HasSubstr("flipped.pb")) << "bit " << bit;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never.json"));
}

// Issue 49 item 19: a shard computed with glibc's FMA/AVX2 code paths disabled merged with normal
// ones into a result that matched neither machine's run, with exit 0. Those bits no longer depend
// on the CPU (cpu_independence_test.cpp), but another nhsim version, compiler or SLEEF may still
// round differently: parts carry the fingerprint of their build and its elementary functions,
// and a merge refuses a mix unless told otherwise. The other build's part is this build's with
// the fingerprint that build would write.
TEST_F(RunMergeTest, PartsOfDifferentBuildsMergeOnlyWhenAllowed) {
  ok("run " + path("shards.json") + " --trajectories 0:15 --out " + path("normal.pb"));
  ok("run " + path("shards.json") + " --trajectories 15:30 --out " + path("other.pb"));
  v1::PartialResult normal, other;
  ASSERT_TRUE(normal.ParseFromString(read_file(dir_ / "normal.pb")));
  ASSERT_TRUE(other.ParseFromString(read_file(dir_ / "other.pb")));
  EXPECT_THAT(normal.fingerprint(), HasSubstr("; math "));
  EXPECT_EQ(other.fingerprint(), normal.fingerprint());
  other.set_fingerprint("nhsim 0.0.9 GCC 12.2.0; math 0123456789abcdef");
  write_file(dir_ / "other.pb", wire::part_file_bytes(other));
  const CliRun mixed = nhsim("merge " + path("normal.pb") + " " + path("other.pb") + " --json " +
                             path("never.json"));
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_THAT(mixed.err, HasSubstr("different builds or math libraries"));
  EXPECT_THAT(mixed.err, HasSubstr("normal.pb: " + normal.fingerprint()));
  EXPECT_THAT(mixed.err, HasSubstr("other.pb: " + other.fingerprint()));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never.json"));
  ok("merge " + path("normal.pb") + " " + path("other.pb") + " --allow-mixed-builds --out " +
     path("mixed.pb"));
  v1::PartialResult merged;
  ASSERT_TRUE(merged.ParseFromString(read_file(dir_ / "mixed.pb")));
  EXPECT_EQ(merged.fingerprint(), "mixed");
}

/// Peak resident memory (KiB) of `nhsim <arguments>`, run to completion; -1 if it failed.
long peak_rss_kib(const std::vector<std::string>& arguments) {
  std::vector<char*> argv = {const_cast<char*>(NHSIM_PATH)};
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, NHSIM_PATH, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return -1;
  }
  return usage.ru_maxrss;
}

/// si_dla alone on `count` energy-shell states of the chaotic quartic, sampled at every step up
/// to `t_final` (3 observables per sample time): a spec whose memory is all statistics.
std::string every_step_spec(int count, double t_final) {
  char spec[512];
  std::snprintf(spec, sizeof spec, R"({
    "system": "chaotic_quartic",
    "parameters": {"n": 3},
    "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 11, "count": %d}},
    "integrators": [{"integrator": "si_dla", "h": 0.05, "sample_every": 1}],
    "t_final": %g
  })",
                count, t_final);
  return spec;
}

TEST_F(RunMergeTest, MemoryDoesNotGrowWithTheTrajectoryCount) {
  // Beyond 400 values per cell the quantile sketches hold bucket counts, not values; the
  // runner holds one block of trajectories per thread. 30x the trajectories, about the same
  // peak memory (keeping the values of the 123 cells would add 30 MB to about 18 MB).
  std::vector<long> peak;
  for (const std::string count : {"1000", "30000"}) {
    write_file(dir_ / ("n" + count + ".json"), every_step_spec(std::stoi(count), 2.0));
    peak.push_back(peak_rss_kib({"run", (dir_ / ("n" + count + ".json")).string(), "--threads", "2",
                                 "--out", (dir_ / ("n" + count + ".pb")).string()}));
    ASSERT_GT(peak.back(), 0) << count;
  }
  RecordProperty("peak_rss_kib_1000", std::to_string(peak[0]));
  RecordProperty("peak_rss_kib_30000", std::to_string(peak[1]));
  EXPECT_LT(static_cast<double>(peak[1]), 1.25 * static_cast<double>(peak[0]))
      << "peak RSS " << peak[0] << " KiB for 1000 trajectories, " << peak[1] << " KiB for 30000";
}

TEST_F(RunMergeTest, PeakMemoryStaysUnderTheAdmissionEstimate) {
  // 500 trajectories x 10001 sample times x 3 observables: the admission estimate
  // (nhsim::estimate_cost, docs/operations.md) is 2 x 30003 x (1344 + 8 x 400) bytes = 260 MiB.
  // Sketches of widely spread values hold more buckets than the estimate's 400 values, so the
  // documented bound is 1.5 x the estimate + 64 MiB for the process itself.
  write_file(dir_ / "big.json", every_step_spec(500, 500.0));
  const long peak = peak_rss_kib(
      {"run", (dir_ / "big.json").string(), "--threads", "2", "--out", (dir_ / "big.pb").string()});
  ASSERT_GT(peak, 0);
  const double estimate_kib = 2.0 * 30003 * (1344 + 8 * 400) / 1024.0;
  RecordProperty("peak_rss_kib", std::to_string(peak));
  EXPECT_LT(static_cast<double>(peak), 1.5 * estimate_kib + 64 * 1024)
      << "peak " << peak << " KiB, estimate " << estimate_kib << " KiB";
}

}  // namespace
}  // namespace nhsim::e2e

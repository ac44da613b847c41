// Issue 49 item 19: a run's bits do not depend on the CPU that computed them. glibc's libm picks
// FMA/AVX2 or generic code paths when it loads, and they round differently on a few arguments in
// 1000; nhsim's elementary functions (nhsim/dmath.hpp, SLEEF's deterministic scalar functions) do
// not. Disabling glibc's FMA/AVX2 paths with GLIBC_TUNABLES stands in for another CPU: the
// examples below, which between them call every function of dmath.hpp, give the normal run's
// result bit for bit, and a shard computed so merges with normal ones, with no warning, into the
// whole run's result. (All 35 examples, by hand: `GLIBC_TUNABLES=... scripts/example-hashes
// build` prints the hashes it prints without; the build before SLEEF changed 18 of them.)
#include <cstdlib>
#include <string>

#include "cli_support.hpp"
#include "nhsim/v1/partial_result.pb.h"

namespace nhsim::e2e {
namespace {

constexpr const char* kWithoutFmaPaths = "glibc.cpu.hwcaps=-AVX2_Usable,-FMA_Usable,-AVX2,-FMA";

/// 500 energy-shell states of the chaotic quartic: log and cos in the generator (with glibc, 4 of
/// 200 such states differed between the two code paths), and beyond 400 values the quantile
/// sketch's buckets (log, exp).
constexpr const char* kShardSpec = R"({
  "system": "chaotic_quartic",
  "parameters": {"n": 3},
  "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": 19, "count": 500}},
  "integrators": [{"integrator": "si_dla", "h": 0.05, "sample_every": 4}],
  "t_final": 2.0,
  "label": "cpu"
})";

class CpuIndependenceTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (!glibc_paths_differ()) {
      GTEST_SKIP() << "glibc's libm has no other code paths to disable on this CPU";
    }
  }

  /// `nhsim <arguments>` with glibc's FMA/AVX2 code paths disabled, as on a CPU without them.
  CliRun nhsim_without_fma_paths(const std::string& arguments) const {
    ::setenv("GLIBC_TUNABLES", kWithoutFmaPaths, 1);
    const CliRun run = nhsim(arguments);
    ::unsetenv("GLIBC_TUNABLES");
    return run;
  }

  /// Whether the tunables change glibc's own results here (Python's math module is glibc's libm;
  /// the arguments are wire/fingerprint.cpp's), i.e. whether this test can tell anything.
  bool glibc_paths_differ() const {
    const std::string probe = quote(
        "import math; h = float.fromhex; "
        "print([f(h(x)).hex() for f, x in [(math.sin, '0x1.2b4c23b11996p-1'), "
        "(math.cos, '-0x1.f5d3adf3000dp-1'), (math.exp, '0x1.39bb0987514f4p+3'), "
        "(math.log, '0x1.5abfb05359d1ap+1')]])");
    const auto run = [&](const std::string& environment) {
      const fs::path out = dir_ / "probe";
      const std::string command = environment + " python3 -c " + probe + " >" + quote(out);
      return std::system(command.c_str()) == 0 ? read_file(out) : std::string("failed");
    };
    return run("env") != run(std::string("env GLIBC_TUNABLES=") + kWithoutFmaPaths);
  }
};

// sin, cos (systems, controls, RDP, the tape), atan (SE(2)'s Cayley map), asinh (the
// nonholonomic particle), log and cos (the energy-shell generator), log and exp (the quantile
// sketch beyond 400 values, the growth fit), exp, log, tan, pow at real and complex arguments
// (user-defined systems and their complex-step derivatives).
TEST_F(CpuIndependenceTest, ExamplesCallingEveryFunctionGiveTheSameBitsWithoutFmaPaths) {
  for (const char* example :
       {"chaotic_variance", "snakeboard_fig4", "rolling_disk", "sleigh_prop41", "knife_edge_fig5",
        "particle_fig23", "custom_contact_oscillator", "custom_sleigh_incline"}) {
    SCOPED_TRACE(example);
    const std::string spec = quote(std::string(NHSIM_EXAMPLES_DIR) + "/" + example + ".json");
    const CliRun normal = nhsim("run " + spec + " --json " + path("normal.json"));
    ASSERT_EQ(normal.exit_code, 0) << normal.err;
    const CliRun other = nhsim_without_fma_paths("run " + spec + " --json " + path("other.json"));
    ASSERT_EQ(other.exit_code, 0) << other.err;
    EXPECT_TRUE(same_statistics(statistics_of(read_file(dir_ / "other.json")),
                                statistics_of(read_file(dir_ / "normal.json"))));
  }
}

TEST_F(CpuIndependenceTest, AShardFromAnotherCpuMergesIntoTheWholeRun) {
  write_file(dir_ / "spec.json", kShardSpec);
  const CliRun whole = nhsim("run " + path("spec.json") + " --json " + path("whole.json"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const CliRun first =
      nhsim("run " + path("spec.json") + " --trajectories 0:250 --out " + path("first.pb"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const CliRun last = nhsim_without_fma_paths("run " + path("spec.json") +
                                              " --trajectories 250:500 --out " + path("last.pb"));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  v1::PartialResult normal, other;
  ASSERT_TRUE(normal.ParseFromString(read_file(dir_ / "first.pb")));
  ASSERT_TRUE(other.ParseFromString(read_file(dir_ / "last.pb")));
  EXPECT_EQ(other.fingerprint(), normal.fingerprint());
  const CliRun merge =
      nhsim("merge " + path("first.pb") + " " + path("last.pb") + " --json " + path("merged.json"));
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_EQ(merge.err,
            "result written to " + (dir_ / "merged.json").string() + "\n");  // no warning
  EXPECT_TRUE(same_statistics(statistics_of(read_file(dir_ / "merged.json")),
                              statistics_of(read_file(dir_ / "whole.json"))));
}

}  // namespace
}  // namespace nhsim::e2e

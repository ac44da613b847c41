// The job manager's memory guard: a running job whose checkpoint grows beyond the memory it was
// admitted with is stopped, FAILED with "RESOURCE_EXHAUSTED: ..." naming the sizes, and the
// server goes on; jobs within their estimate, failing ones included, run to their end.
#include "nhsim/server/job_manager.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "nhsim/server/executor.hpp"
#include "nhsim/server/metrics.hpp"
#include "nhsim/wire/from_proto.hpp"

namespace nhsim::server {
namespace {

/// 600 energy-shell states of the chaotic quartic with `integrator` at step h, sampled every 4
/// steps to t_final: several chunks, each but the last followed by a checkpoint.
v1::SubmitEnsembleRequest request(const char* integrator, double h, double t_final = 4.0) {
  v1::SubmitEnsembleRequest r;
  r.set_system("chaotic_quartic");
  (*r.mutable_parameters())["n"] = 3;
  auto* shell = r.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(7);
  shell->set_count(600);
  auto* choice = r.add_integrators();
  choice->set_integrator(integrator);
  choice->set_h(h);
  choice->set_sample_every(4);
  r.set_t_final(t_final);
  return r;
}

class JobManagerTest : public ::testing::Test {
 protected:
  /// Submits `r` admitted with `memory_bytes` (< 0: its own estimate) and follows it to its end.
  JobRecord run(const v1::SubmitEnsembleRequest& r, double memory_bytes) {
    Problem problem(wire::from_proto(r));
    if (memory_bytes < 0) memory_bytes = job_memory_bytes(estimate_cost(problem));
    const v1::Job job = jobs_.submit(r, std::move(problem), "alice", "", memory_bytes);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    for (;;) {
      const std::optional<JobRecord> record = jobs_.store().get(job.job_id());
      if (!record || std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "job " << job.job_id() << " did not end";
        return {};
      }
      if (is_terminal(record->state)) return *record;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  Metrics metrics_{""};
  // A checkpoint after every chunk but the last.
  JobManager jobs_{make_local_executor(2, 0.0, 1), metrics_};
};

TEST_F(JobManagerTest, AJobWhoseCheckpointOutgrowsItsAdmittedMemoryIsStopped) {
  const JobRecord stopped = run(request("si_dla", 0.05), 16 * 1024);
  EXPECT_EQ(stopped.state, v1::FAILED);
  EXPECT_EQ(stopped.error.rfind("RESOURCE_EXHAUSTED: the checkpoint of ", 0), 0u) << stopped.error;
  EXPECT_NE(stopped.error.find("beyond 1.5 x the 0.0156 MiB of memory it was admitted with"),
            std::string::npos)
      << stopped.error;
  EXPECT_LT(stopped.trajectories_done, 600);
  // The server goes on: the same job within its own estimate runs to its end.
  EXPECT_EQ(run(request("si_dla", 0.05), -1).state, v1::SUCCEEDED);
}

TEST_F(JobManagerTest, FailingTrajectoriesStayWithinTheEstimate) {
  // rk4 at h = 50: every trajectory fails at its first step; the failure records are capped.
  const JobRecord failing = run(request("rk4", 50.0, 400.0), -1);
  EXPECT_EQ(failing.state, v1::SUCCEEDED) << failing.error;
  EXPECT_EQ(failing.trajectories_done, 600);
}

}  // namespace
}  // namespace nhsim::server

// The local executor's chunks and checkpoints: a job shorter than checkpoint_seconds runs in two
// chunks (the first measures the rate) and writes no checkpoint; past the interval, one follows
// each chunk but the last; a shutdown keeps the chunks finished before it in one last checkpoint.
// The result is the bits of one run_ensemble() whatever the chunking. A job running alone takes
// the threads of every job the pool is sized for.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "nhsim/server/executor.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::server {
namespace {

/// 300 energy-shell states of the chaotic quartic system with si_dla: the executor's first chunk
/// on 2 threads is 16 trajectories.
v1::SubmitEnsembleRequest short_request() {
  v1::SubmitEnsembleRequest request;
  request.set_system("chaotic_quartic");
  (*request.mutable_parameters())["n"] = 3;
  auto* shell = request.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(7);
  shell->set_count(300);
  auto* choice = request.add_integrators();
  choice->set_integrator("si_dla");
  choice->set_h(0.05);
  choice->set_sample_every(4);
  request.set_t_final(2.0);
  return request;
}

/// One job through a local executor of 2 threads; records the chunks and checkpoints.
class LocalExecutorTest : public ::testing::Test {
 protected:
  EnsembleResult run(double checkpoint_seconds, int halt_after_chunks = 0, int threads = 2,
                     int concurrent_jobs = 1) {
    const std::unique_ptr<Executor> executor =
        make_local_executor(threads, checkpoint_seconds, concurrent_jobs);
    JobRun job{.id = id_,
               .owner = owner_,
               .request = request_,
               .problem = problem_,
               .spec_hash = hash_,
               .cancel = cancel_,
               .halt = halt_,
               .resume_from = nullptr,
               .steps = &steps_,
               .progress = {},
               .checkpoint = {},
               .completed = {}};
    job.checkpoint = [&](const PartialResult& partial) {
      EXPECT_EQ(partial.spec_hash, hash_);
      checkpoints_.push_back(covered_count(partial));
    };
    job.completed = [&](const PartialResult& chunk) {
      chunks_.push_back(covered_count(chunk));
      if (static_cast<int>(chunks_.size()) == halt_after_chunks) halt_.store(true);
    };
    return executor->run(job);
  }

  const std::string id_ = std::string(32, 'a');
  const std::string owner_ = "test";
  const v1::SubmitEnsembleRequest request_ = short_request();
  const EnsembleSpec spec_ = wire::from_proto(request_);
  const Problem problem_{spec_};
  const std::string hash_ = wire::spec_sha256(request_);
  std::atomic<bool> cancel_{false};
  std::atomic<bool> halt_{false};
  std::vector<std::int64_t> chunks_;       ///< trajectories of each completed chunk
  std::vector<std::int64_t> checkpoints_;  ///< trajectories covered by each checkpoint
  std::atomic<std::int64_t> steps_{0};     ///< RunOptions::steps of every chunk
};

TEST_F(LocalExecutorTest, AJobShorterThanTheIntervalRunsInTwoChunksAndWritesNoCheckpoint) {
  const EnsembleResult result = run(3600.0);
  EXPECT_EQ(chunks_, (std::vector<std::int64_t>{16, 284}));  // one block per thread, the rest
  EXPECT_TRUE(checkpoints_.empty());
  EXPECT_EQ(result.integrators.at(0).trajectories_ok, 300);
}

TEST_F(LocalExecutorTest, PastTheIntervalEveryChunkButTheLastEndsInACheckpoint) {
  const EnsembleResult chunked = run(1e-9);
  ASSERT_GE(chunks_.size(), 3u);
  std::vector<std::int64_t> expected;
  std::int64_t done = 0;
  for (std::size_t k = 0; k + 1 < chunks_.size(); ++k) expected.push_back(done += chunks_[k]);
  EXPECT_EQ(checkpoints_, expected);
  // Every chunk's trajectory-steps reach the job's counter.
  EXPECT_EQ(steps_.load(), static_cast<std::int64_t>(estimate_cost(problem_).trajectory_steps));

  // Any chunking gives the bits of one run.
  RunOptions options;
  options.threads = 2;
  const EnsembleResult whole = run_ensemble(spec_, options);
  const SeriesStats& a = chunked.integrators.at(0).observables.at(0);
  const SeriesStats& b = whole.integrators.at(0).observables.at(0);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.variance, b.variance);
  EXPECT_EQ(a.q50, b.q50);
}

TEST_F(LocalExecutorTest, AShutdownKeepsTheChunksFinishedBeforeIt) {
  // Halted as its second chunk completes: that chunk counts as interrupted and is dropped; the
  // first, never checkpointed (the interval is an hour), is saved before Interrupted.
  EXPECT_THROW(run(3600.0, 2), Interrupted);
  ASSERT_EQ(chunks_.size(), 2u);
  EXPECT_EQ(checkpoints_, std::vector<std::int64_t>{chunks_[0]});
}

TEST_F(LocalExecutorTest, AJobRunningAloneTakesEveryJobsThreads) {
  // A pool for 2 jobs of 1 thread: alone, the job's first chunk is one block for each of 2
  // threads, as on an executor for one job of 2 threads.
  EXPECT_EQ(run(3600.0, 0, 1, 2).integrators.at(0).trajectories_ok, 300);
  EXPECT_EQ(chunks_, (std::vector<std::int64_t>{16, 284}));
  chunks_.clear();
  run(3600.0, 0, 1, 1);
  EXPECT_EQ(chunks_, (std::vector<std::int64_t>{8, 292}));
}

TEST(JobShareThreads, IsTheJobsShareOfThePool) {
  EXPECT_EQ(job_share_threads(2, 2, 1), 4);  // alone on a pool for 2 jobs: both jobs' threads
  EXPECT_EQ(job_share_threads(2, 2, 2), 2);
  EXPECT_EQ(job_share_threads(2, 4, 1), 8);
  EXPECT_EQ(job_share_threads(2, 4, 2), 4);
  EXPECT_EQ(job_share_threads(2, 4, 3), 2);  // floor(4 / 3) = 1 share
  EXPECT_EQ(job_share_threads(3, 1, 1), 3);
  EXPECT_EQ(job_share_threads(0, 4, 1), 0);  // 0: all cores, already
}

}  // namespace
}  // namespace nhsim::server

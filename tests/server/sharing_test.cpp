// A server shared by several identities (issue 49): one identity's long jobs do not block
// another's small one.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/server/server.hpp"
#include "nhsim/wire/auth.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;
using client::Client;
using client::Connection;
using Seconds = std::chrono::duration<double>;

const std::string kAliceToken = "nhsim_alice-sharing-token";
const std::string kBobToken = "nhsim_bob-sharing-token";

/// About a minute of rk4 work on one thread: cancelled by the tests.
v1::SubmitEnsembleRequest long_spec() {
  v1::SubmitEnsembleRequest spec;
  spec.set_system("chaotic_quartic");
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(1);
  shell->set_count(1000);
  auto* choice = spec.add_integrators();
  choice->set_integrator("rk4");
  choice->set_h(0.05);
  choice->set_sample_every(100);
  spec.set_t_final(1e4);
  return spec;
}

v1::SubmitEnsembleRequest small_spec() {
  v1::SubmitEnsembleRequest spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(2);
  spec.set_t_final(1.0);
  return spec;
}

class SharingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nhsim-sharing-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream tokens(dir_ / "tokens");
    tokens << wire::token_line(kAliceToken, "alice", false) << "\n"
           << wire::token_line(kBobToken, "bob", false) << "\n";
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  void start(ServerOptions options) {
    options.listen = "127.0.0.1:0";
    options.metrics = "";
    options.tokens_file = dir_ / "tokens";
    server_ = std::make_unique<Server>(options);
  }

  Client as(const std::string& token) const {
    Connection connection;
    connection.address = "127.0.0.1:" + std::to_string(server_->port());
    connection.token = token;
    return Client(connection, std::chrono::seconds(10));
  }

  fs::path dir_;
  std::unique_ptr<Server> server_;
};

// Item 6: four long jobs of one identity filled every runner and the queue was first come, first
// served, so another identity's small job waited for one of them to end (66 s and more).
TEST_F(SharingTest, ASmallJobOfAnotherIdentityStartsWhileOneIdentityHasEightLongJobs) {
  start({.threads = 1, .max_running_jobs = 4});
  Client alice = as(kAliceToken);
  Client bob = as(kBobToken);
  std::vector<std::string> long_jobs;
  for (int k = 0; k < 8; ++k) long_jobs.push_back(alice.submit(long_spec()).job_id());
  // Alice's first jobs take the runners her cap allows (4 - 1 = 3); the rest wait.
  int running = 0;
  for (int i = 0; i < 200 && running < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = 0;
    for (const std::string& id : long_jobs) running += alice.get_job(id).state() == v1::RUNNING;
  }
  ASSERT_EQ(running, 3);
  const auto submitted = std::chrono::steady_clock::now();
  const std::string small = bob.submit(small_spec()).job_id();
  v1::JobState state = v1::QUEUED;
  while (state == v1::QUEUED && Seconds(std::chrono::steady_clock::now() - submitted).count() < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    state = bob.get_job(small).state();
  }
  const double waited = Seconds(std::chrono::steady_clock::now() - submitted).count();
  RecordProperty("small_job_queue_wait_seconds", std::to_string(waited));
  EXPECT_NE(state, v1::QUEUED) << "bob's job still waits after " << waited << " s";
  EXPECT_LT(waited, 1.0);
  EXPECT_EQ(bob.watch(small, nullptr).state(), v1::SUCCEEDED);
  // Still only three of alice's run: the free runner is not hers to take.
  running = 0;
  for (const std::string& id : long_jobs) running += alice.get_job(id).state() == v1::RUNNING;
  EXPECT_EQ(running, 3);
  for (const std::string& id : long_jobs) alice.cancel(id);
  for (const std::string& id : long_jobs)
    EXPECT_EQ(alice.watch(id, nullptr).state(), v1::CANCELLED);
}

// The next job to run is the oldest of the identity with the fewest running, whatever the order
// of submission.
TEST_F(SharingTest, TheQueueAlternatesBetweenIdentities) {
  start({.threads = 1, .max_running_jobs = 2, .max_running_per_client = 2});
  Client alice = as(kAliceToken);
  Client bob = as(kBobToken);
  // Two long jobs of alice take both runners; then alice queues two more and bob one.
  std::vector<std::string> alice_jobs;
  for (int k = 0; k < 4; ++k) alice_jobs.push_back(alice.submit(long_spec()).job_id());
  const std::string bob_job = bob.submit(long_spec()).job_id();
  for (int i = 0; i < 200 && alice.get_job(alice_jobs[1]).state() != v1::RUNNING; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(alice.get_job(alice_jobs[1]).state(), v1::RUNNING);
  // One of alice's running jobs ends: the runner goes to bob, not to alice's older third job.
  alice.cancel(alice_jobs[0]);
  alice.watch(alice_jobs[0], nullptr);
  for (int i = 0; i < 200 && bob.get_job(bob_job).state() == v1::QUEUED; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(bob.get_job(bob_job).state(), v1::RUNNING);
  EXPECT_EQ(alice.get_job(alice_jobs[2]).state(), v1::QUEUED);
  for (const std::string& id : alice_jobs) alice.cancel(id);
  bob.cancel(bob_job);
  for (const std::string& id : alice_jobs) alice.watch(id, nullptr);
  bob.watch(bob_job, nullptr);
}

}  // namespace
}  // namespace nhsim::server

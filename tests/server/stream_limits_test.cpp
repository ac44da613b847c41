// Readers are bounded: a StreamResult whose client stops reading is cut off
// after --stream-write-deadline-seconds and frees its place; result streams and watches are
// capped per identity; open watches hold no thread each.
#include <dirent.h>
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/server/server.hpp"
#include "nhsim/server/stream_caps.hpp"

namespace nhsim::server {
namespace {

using client::Client;
using client::RpcError;
using ::testing::HasSubstr;
using Steady = std::chrono::steady_clock;

/// One rk4 trajectory of the chaotic quartic sampled at every step: 5 MiB of result per
/// 30 000 steps.
v1::SubmitEnsembleRequest sampled_spec(int steps) {
  v1::SubmitEnsembleRequest spec;
  spec.set_system("chaotic_quartic");
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(1);
  shell->set_count(1);
  auto* choice = spec.add_integrators();
  choice->set_integrator("rk4");
  choice->set_h(0.05);
  choice->set_sample_every(1);
  spec.set_t_final(0.05 * steps);
  return spec;
}

/// About a minute of one rk4 trajectory, sampled rarely: runs until the test cancels it.
v1::SubmitEnsembleRequest long_spec() {
  v1::SubmitEnsembleRequest spec = sampled_spec(20'000'000);
  spec.mutable_integrators(0)->set_sample_every(10'000);
  return spec;
}

/// Threads of this process (the server runs in it).
int threads_of_this_process() {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) throw std::runtime_error("cannot read /proc/self/task");
  int n = 0;
  while (const dirent* entry = readdir(tasks)) n += entry->d_name[0] != '.';
  closedir(tasks);
  return n;
}

class StreamLimitsTest : public ::testing::Test {
 protected:
  void start(const std::function<void(ServerOptions&)>& adjust) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.metrics = "";
    options.threads = 1;
    adjust(options);
    server_ = std::make_unique<Server>(options);
    client_ = std::make_unique<Client>("127.0.0.1:" + std::to_string(server_->port()));
    stub_ = v1::EnsembleService::NewStub(client_->channel());
  }

  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<v1::EnsembleService::Stub> stub_;
};

TEST(StreamCapsTest, CountsPerIdentityAndInAllAndNamesTheFlag) {
  StreamCaps caps("result streams", {.max_open = 3,
                                     .max_open_per_client = 2,
                                     .total_flag = "--max-result-streams",
                                     .per_client_flag = "--max-result-streams-per-client"});
  EXPECT_EQ(caps.admit("alice"), "");
  EXPECT_EQ(caps.admit("alice"), "");
  EXPECT_THAT(caps.admit("alice"), HasSubstr("you have 2 open result streams, this server's "
                                             "limit --max-result-streams-per-client=2"));
  EXPECT_EQ(caps.admit("bob"), "");
  EXPECT_THAT(caps.admit("carol"), HasSubstr("--max-result-streams=3"));
  caps.release("alice");
  EXPECT_EQ(caps.open(), 2);
  EXPECT_EQ(caps.admit("carol"), "");
  EXPECT_THAT(caps.admit("alice"), HasSubstr("--max-result-streams=3"));
}

TEST_F(StreamLimitsTest, AReaderThatStopsReadingIsCutOffAndFreesItsPlace) {
  start([](ServerOptions& options) {
    options.max_result_streams_per_client = 1;
    options.stream_write_deadline_seconds = 4;  // time enough to ask for the second stream
  });
  // 300 trajectories with their states at 1001 times, about 34 MB: far more than the
  // transport's windows and socket buffers hold.
  v1::SubmitEnsembleRequest spec = sampled_spec(10'000);
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(300);
  spec.mutable_integrators(0)->set_sample_every(10);
  spec.mutable_outputs()->mutable_sampled()->set_all(true);
  spec.mutable_outputs()->set_sampled_state(true);
  const v1::Job job = client_->submit(spec);
  ASSERT_EQ(client_->watch(job.job_id(), nullptr).state(), v1::SUCCEEDED);
  v1::GetResultRequest request;
  request.set_job_id(job.job_id());

  grpc::ClientContext stalled_context;
  const auto stalled = stub_->StreamResult(&stalled_context, request);
  v1::ResultChunk chunk;
  ASSERT_TRUE(stalled->Read(&chunk));  // served; then this client reads no more
  const Steady::time_point stalled_at = Steady::now();

  // While it is open, a second stream of the same identity is refused, naming the flag.
  {
    grpc::ClientContext context;
    const auto second = stub_->StreamResult(&context, request);
    while (second->Read(&chunk)) {
    }
    const grpc::Status status = second->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max-result-streams-per-client=1"));
  }

  // The stalled stream is cut off after its deadline: a new reader then gets the whole result.
  std::optional<v1::EnsembleResult> result;
  while (!result && Steady::now() - stalled_at < std::chrono::seconds(60)) {
    try {
      result = client_->result(job.job_id());
    } catch (const RpcError& e) {
      ASSERT_EQ(e.code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << e.what();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  ASSERT_TRUE(result.has_value()) << "the stalled stream was not cut off within 60 s";
  EXPECT_GE(Steady::now() - stalled_at, std::chrono::seconds(4));
  EXPECT_EQ(result->integrators(0).sample_times_size(), 1001);
  EXPECT_GT(result->ByteSizeLong(), 30u << 20);
  while (stalled->Read(&chunk)) {  // what was in flight, then the end
  }
  EXPECT_FALSE(stalled->Finish().ok());
}

TEST_F(StreamLimitsTest, WatchesAreCappedPerIdentityAndAnEndedOneFreesItsPlace) {
  start([](ServerOptions& options) { options.max_watchers_per_client = 2; });
  const v1::Job job = client_->submit(long_spec());
  v1::WatchJobRequest request;
  request.set_job_id(job.job_id());
  v1::Job update;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::Job>>> watches;
  for (int k = 0; k < 2; ++k) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    watches.push_back(stub_->WatchJob(contexts.back().get(), request));
    ASSERT_TRUE(watches.back()->Read(&update));
    EXPECT_EQ(update.job_id(), job.job_id());
  }
  {
    grpc::ClientContext context;
    const auto third = stub_->WatchJob(&context, request);
    EXPECT_FALSE(third->Read(&update));
    const grpc::Status status = third->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max-watchers-per-client=2"));
  }
  contexts[0]->TryCancel();
  EXPECT_EQ(watches[0]->Finish().error_code(), grpc::StatusCode::CANCELLED);
  bool watched = false;  // the cancelled watch's place is freed once the server sees it end
  for (const Steady::time_point start = Steady::now();
       !watched && Steady::now() - start < std::chrono::seconds(30);) {
    grpc::ClientContext context;
    const auto again = stub_->WatchJob(&context, request);
    watched = again->Read(&update);
    context.TryCancel();
    again->Finish();
    if (!watched) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(watched);
  client_->cancel(job.job_id());
  while (watches[1]->Read(&update)) {
  }
  EXPECT_TRUE(watches[1]->Finish().ok());
  EXPECT_EQ(update.state(), v1::CANCELLED);
}

TEST_F(StreamLimitsTest, OpenWatchesHoldNoThreadEach) {
  start([](ServerOptions&) {});
  const v1::Job job = client_->submit(long_spec());
  v1::WatchJobRequest request;
  request.set_job_id(job.job_id());
  constexpr int kWatches = 300;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::Job>>> watches;
  const int before = threads_of_this_process();
  v1::Job update;
  for (int k = 0; k < kWatches; ++k) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    watches.push_back(stub_->WatchJob(contexts.back().get(), request));
    ASSERT_TRUE(watches.back()->Read(&update)) << "watch " << k;
  }
  const int during = threads_of_this_process();
  // A thread per watch (the synchronous API) would add 300; gRPC's callback and transport
  // threads are a few dozen at most.
  EXPECT_LT(during - before, 50) << before << " threads before, " << during << " with " << kWatches
                                 << " watches";
  client_->cancel(job.job_id());
  for (auto& watch : watches) {
    while (watch->Read(&update)) {
    }
    EXPECT_TRUE(watch->Finish().ok());
    EXPECT_EQ(update.state(), v1::CANCELLED);
  }
}

}  // namespace
}  // namespace nhsim::server

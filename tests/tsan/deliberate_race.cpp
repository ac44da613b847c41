// A deliberate data race on a small nhsim structure, built only under TSan (NHSIM_SANITIZE=thread)
// and run by scripts/sanitize tsan with the same TSAN_OPTIONS and scripts/tsan.supp as the tests.
// The script requires TSan to report the three races below, each naming this file in both racing
// stacks: proof that the suppressions (and the oneTBB hand-off annotations of nhsim/tsan.hpp)
// hide no race whose accesses are nhsim's own code. Not a ctest: it must fail, and how it fails is
// what is checked.
//
//   1. Two std::threads increment a plain int member without a lock.
//   2. Two bodies of a tbb::parallel_for do the same while running at the same time, on oneTBB's
//      threads (uninstrumented frames below ours) and with the annotations the core's loop bodies
//      use: those order bodies that run one after the other, not ones that overlap.
//   3. A gRPC server interceptor does the same in two calls at the same time, on gRPC's threads,
//      in calls to a method no service has (the path of most gRPC entries of scripts/tsan.supp).
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "nhsim/tsan.hpp"

namespace nhsim::tsan_check {

struct RacyCounter {
  int value = 0;  // deliberately not atomic and not guarded
};

[[gnu::noinline]] void bump_from_thread(RacyCounter& counter) {
  for (int i = 0; i < 1000; ++i) ++counter.value;
}

[[gnu::noinline]] void bump_from_tbb_body(RacyCounter& counter) {
  for (int i = 0; i < 1000; ++i) ++counter.value;
}

[[gnu::noinline]] void bump_from_grpc_interceptor(RacyCounter& counter) {
  for (int i = 0; i < 1000; ++i) ++counter.value;
}

/// Waits until both bodies have entered, so that they overlap. Relaxed atomics: TSan derives no
/// order from them, so the wait adds none.
bool wait_for_both(std::atomic<int>& entered) {
  entered.fetch_add(1, std::memory_order_relaxed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (entered.load(std::memory_order_relaxed) < 2) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

/// Bumps the counter when a call's first batch arrives, once both calls' interceptors are in;
/// with the annotations of server/rpc_metrics.cpp, which order one interceptor's uses, not two.
class RacyInterceptor final : public grpc::experimental::Interceptor {
 public:
  RacyInterceptor(RacyCounter& counter, std::atomic<int>& entered, std::atomic<bool>& overlapped)
      : counter_(counter), entered_(entered), overlapped_(overlapped) {
    nhsim::tsan_release(this);
  }
  ~RacyInterceptor() override { nhsim::tsan_acquire(this); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    nhsim::tsan_acquire(this);
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      if (!wait_for_both(entered_)) overlapped_.store(false, std::memory_order_relaxed);
      bump_from_grpc_interceptor(counter_);
    }
    nhsim::tsan_release(this);
    methods->Proceed();
  }

 private:
  RacyCounter& counter_;
  std::atomic<int>& entered_;
  std::atomic<bool>& overlapped_;
};

class RacyInterceptorFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  RacyInterceptorFactory(RacyCounter& counter, std::atomic<int>& entered,
                         std::atomic<bool>& overlapped)
      : counter_(counter), entered_(entered), overlapped_(overlapped) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo*) override {
    return new RacyInterceptor(counter_, entered_, overlapped_);
  }

 private:
  RacyCounter& counter_;
  std::atomic<int>& entered_;
  std::atomic<bool>& overlapped_;
};

/// Part 3: two concurrent calls to a made-up method of a server with gRPC's health and reflection
/// services (as nhsimd has), which gRPC's own handler answers. Whether the interceptors overlapped.
bool race_in_grpc_interceptors() {
  RacyCounter counter;
  std::atomic<int> entered{0};
  std::atomic<bool> overlapped{true};
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<RacyInterceptorFactory>(counter, entered, overlapped));
  builder.experimental().SetInterceptorCreators(std::move(factories));
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  const auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto call = [&] {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    grpc::CompletionQueue queue;
    grpc::ByteBuffer request, response;
    auto rpc = stub.PrepareUnaryCall(&context, "/nhsim.tsan.Deliberate/Race", request, &queue);
    rpc->StartCall();
    grpc::Status status;
    rpc->Finish(&response, &status, nullptr);
    void* tag = nullptr;
    bool ok = false;
    queue.Next(&tag, &ok);
  };
  std::thread a(call);
  std::thread b(call);
  a.join();
  b.join();
  server->Shutdown();
  return overlapped.load(std::memory_order_relaxed);
}

}  // namespace nhsim::tsan_check

int main() {
  using namespace nhsim::tsan_check;

  RacyCounter threads_counter;
  std::thread a([&] { bump_from_thread(threads_counter); });
  std::thread b([&] { bump_from_thread(threads_counter); });
  a.join();
  b.join();

  RacyCounter tbb_counter;
  std::atomic<int> entered{0};
  std::atomic<bool> overlapped{true};
  nhsim::tbb_handoff_release();
  tbb::parallel_for(
      tbb::blocked_range<int>(0, 2, 1),
      [&](const tbb::blocked_range<int>&) {
        nhsim::tbb_handoff_acquire();
        if (!wait_for_both(entered)) overlapped.store(false, std::memory_order_relaxed);
        bump_from_tbb_body(tbb_counter);
        nhsim::tbb_handoff_release();
      },
      tbb::simple_partitioner());
  nhsim::tbb_handoff_acquire();

  // The script reads this line: without it, a missing second report could be oneTBB running
  // both bodies on one thread rather than a suppression hiding the race.
  std::printf("deliberate_race: tbb bodies overlapped: %s\n",
              overlapped.load(std::memory_order_relaxed) ? "yes" : "no");
  std::printf("deliberate_race: grpc interceptors overlapped: %s\n",
              race_in_grpc_interceptors() ? "yes" : "no");
  return 0;
}

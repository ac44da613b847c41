// WatchJob streams without a thread each: every watch is a gRPC callback reactor, and one
// notifier thread sends each watch its job's changes. A thousand idle watchers cost one thread
// and a poll of the job table ten times a second, not a thousand blocked threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/server/job_store.hpp"
#include "nhsim/server/stream_caps.hpp"
#include "nhsim/v1/ensemble.grpc.pb.h"

namespace nhsim::server {

/// A reactor that answers `status` at once (a refused or failed WatchJob).
grpc::ServerWriteReactor<nhsim::v1::Job>* finished_watch(grpc::Status status);

/// Thread-safe. Owned by the service; destroyed after the gRPC server has shut down.
class WatchHub {
 public:
  /// What watches read: the job table, the message of a record (with its waiting reason) and
  /// the status of a job that is gone.
  struct Source {
    const JobStore& store;
    std::function<nhsim::v1::Job(const JobRecord&)> message;
    std::function<grpc::Status(const std::string& id)> gone;
  };
  /// `write_deadline` > 0: how long one message may wait for its client to read before the
  /// watch is cut off.
  WatchHub(Source source, StreamCapLimits caps, std::chrono::milliseconds write_deadline);
  /// Stops the notifier. Precondition: every watch is done (the server has shut down).
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  /// The reactor of a WatchJob of job `id`, which `identity` may see: it sends the job at once,
  /// then each change (progress at most 10 times a second), and ends OK after the terminal
  /// state; UNAVAILABLE when the server shuts down, the source's `gone` status when the job is
  /// deleted, RESOURCE_EXHAUSTED (naming the flag) when a cap is reached.
  grpc::ServerWriteReactor<nhsim::v1::Job>* watch(grpc::CallbackServerContext* context,
                                                  const std::string& id,
                                                  const std::string& identity);

  int open_watches() const { return caps_.open(); }

 private:
  class Watch;
  /// The notifier: every kTick (or when a watch is added), each watch sends what changed.
  void notify();
  /// Called by a watch's OnDone: it is deleted by the notifier, which alone calls into watches.
  void retire(Watch* watch);

  Source source_;
  StreamCaps caps_;
  const std::chrono::milliseconds write_deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;            // guarded by mutex_
  bool added_ = false;           // guarded by mutex_: a watch waits for its first message
  std::vector<Watch*> watches_;  // guarded by mutex_
  std::vector<Watch*> retired_;  // guarded by mutex_; done, to be deleted by the notifier
  std::thread notifier_;
};

}  // namespace nhsim::server

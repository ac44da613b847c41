#include "nhsim/server/watch_hub.hpp"

#include <pthread.h>

#include <algorithm>

#include "nhsim/server/log.hpp"

namespace nhsim::server {
namespace {

using Steady = std::chrono::steady_clock;
namespace v1 = nhsim::v1;

/// How often the notifier looks at every watched job: also the shortest time between two
/// progress messages of one watch, and the longest delay of a job's end.
constexpr std::chrono::milliseconds kTick(100);

class FinishedWatch final : public grpc::ServerWriteReactor<v1::Job> {
 public:
  explicit FinishedWatch(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerWriteReactor<v1::Job>* finished_watch(grpc::Status status) {
  return new FinishedWatch(std::move(status));
}

/// One WatchJob call. gRPC calls its reactions (OnWriteDone, OnCancel, OnDone) on its threads;
/// they only record what happened. Everything else, every call into gRPC included, happens in
/// tick() on the notifier thread, so that no lock is held across a call into gRPC (which may
/// run reactions inline) and the object outlives every use (the notifier deletes it).
class WatchHub::Watch final : public grpc::ServerWriteReactor<v1::Job> {
 public:
  Watch(WatchHub& hub, grpc::CallbackServerContext* context, std::string id, std::string identity)
      : hub_(hub), context_(context), id_(std::move(id)), identity_(std::move(identity)) {}

  void OnWriteDone(bool ok) override {
    const std::lock_guard lock(mutex_);
    writing_ = false;
    failed_ = failed_ || !ok;
  }
  void OnCancel() override {
    const std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  void OnDone() override { hub_.retire(this); }

  const std::string& identity() const { return identity_; }

  /// Sends what changed since the last message, or ends the call. Notifier thread only.
  void tick(Steady::time_point now) {
    if (finished_) return;
    bool writing = false, failed = false, cancelled = false;
    {
      const std::lock_guard lock(mutex_);
      writing = writing_;
      failed = failed_;
      cancelled = cancelled_;
    }
    if (writing) {  // a client that stopped reading is cut off; its write then fails
      if (!cut_ && now - write_started_ > hub_.write_deadline_) {
        cut_ = true;
        log_job(id_, identity_,
                "WatchJob cut off: a message waited more than " +
                    seconds_text(hub_.write_deadline_) +
                    " for the client to read (--stream-write-deadline-seconds)",
                LogLevel::kWarning);
        context_->TryCancel();
      }
      return;
    }
    if (cancelled || failed) return finish({grpc::StatusCode::CANCELLED, "client went away"});
    if (sent_terminal_) return finish(grpc::Status::OK);
    const JobStore& store = hub_.source_.store;
    if (store.is_shut_down()) {
      return finish({grpc::StatusCode::UNAVAILABLE, "server shutting down"});
    }
    if (const std::optional<JobStore::Stamp> stamp = store.stamp(id_);
        sent_any_ && stamp && *stamp == seen_) {
      return;  // the common case, without copying the record
    }
    const std::optional<JobRecord> record = store.get(id_);
    if (!record) return finish(hub_.source_.gone(id_));
    const JobStore::Stamp stamp{record->version,
                                record->steps_done->load(std::memory_order_relaxed)};
    const bool terminal = is_terminal(record->state);
    if (sent_any_ && !terminal && now - write_started_ < kTick) return;  // progress: 10 a second
    message_ = hub_.source_.message(*record);
    sent_any_ = true;
    seen_ = stamp;
    sent_terminal_ = terminal;
    write_started_ = now;
    {
      const std::lock_guard lock(mutex_);
      writing_ = true;
    }
    StartWrite(&message_);
  }

 private:
  void finish(grpc::Status status) {
    finished_ = true;
    Finish(std::move(status));
  }

  WatchHub& hub_;
  grpc::CallbackServerContext* const context_;
  const std::string id_;
  const std::string identity_;
  std::mutex mutex_;
  bool writing_ = false;    // guarded by mutex_: a StartWrite awaits its OnWriteDone
  bool failed_ = false;     // guarded by mutex_: a write failed (the client went away)
  bool cancelled_ = false;  // guarded by mutex_
  // The notifier's own.
  bool finished_ = false;
  bool cut_ = false;
  bool sent_any_ = false;
  bool sent_terminal_ = false;
  JobStore::Stamp seen_;  // of the last message sent
  Steady::time_point write_started_{};
  v1::Job message_;  // the message in flight
};

WatchHub::WatchHub(Source source, StreamCapLimits caps, std::chrono::milliseconds write_deadline)
    : source_(std::move(source)),
      caps_("watches", std::move(caps)),
      write_deadline_(write_deadline) {
  notifier_ = std::thread([this] { notify(); });
}

WatchHub::~WatchHub() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  notifier_.join();
  for (Watch* watch : retired_) delete watch;
  for (Watch* watch : watches_) delete watch;  // none when the server has shut down
}

grpc::ServerWriteReactor<v1::Job>* WatchHub::watch(grpc::CallbackServerContext* context,
                                                   const std::string& id,
                                                   const std::string& identity) {
  if (std::string refusal = caps_.admit(identity); !refusal.empty()) {
    return finished_watch({grpc::StatusCode::RESOURCE_EXHAUSTED, "WatchJob: " + refusal});
  }
  auto* watch = new Watch(*this, context, id, identity);
  {
    const std::lock_guard lock(mutex_);
    watches_.push_back(watch);
    added_ = true;
  }
  wake_.notify_all();
  return watch;
}

void WatchHub::retire(Watch* watch) {
  {
    const std::lock_guard lock(mutex_);
    watches_.erase(std::find(watches_.begin(), watches_.end(), watch));
    retired_.push_back(watch);
  }
  caps_.release(watch->identity());
}

void WatchHub::notify() {
  pthread_setname_np(pthread_self(), "nhsim-watches");  // in top -H and /proc/PID/task
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kTick, [&] { return stop_ || added_; });
    added_ = false;
    const std::vector<Watch*> retired = std::exchange(retired_, {});
    const std::vector<Watch*> watches = watches_;  // retired ones are kept until the next pass
    lock.unlock();
    for (Watch* watch : retired) delete watch;
    const Steady::time_point now = Steady::now();
    for (Watch* watch : watches) watch->tick(now);
    lock.lock();
  }
}

}  // namespace nhsim::server

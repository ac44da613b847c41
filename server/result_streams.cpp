#include "nhsim/server/result_streams.hpp"

#include <pthread.h>

#include <algorithm>

#include "nhsim/server/log.hpp"

namespace nhsim::server {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ResultStreams::ResultStreams(StreamCapLimits caps, std::chrono::milliseconds write_deadline)
    : caps_("result streams", std::move(caps)), write_deadline_(write_deadline) {
  watchdog_ = std::thread([this] { watch(); });
}

ResultStreams::~ResultStreams() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.notify_all();
  watchdog_.join();
}

std::unique_ptr<ResultStreams::Stream> ResultStreams::open(const std::string& identity,
                                                           std::function<void()> cancel,
                                                           std::string& refusal) {
  refusal = caps_.admit(identity);
  if (!refusal.empty()) return nullptr;
  std::unique_ptr<Stream> stream(new Stream(*this, identity, std::move(cancel)));
  const std::lock_guard lock(mutex_);
  streams_.insert(stream.get());
  return stream;
}

ResultStreams::Stream::~Stream() {
  {
    // Under the lock: the watchdog never cancels a call whose stream has ended.
    const std::lock_guard lock(owner_.mutex_);
    owner_.streams_.erase(this);
  }
  owner_.caps_.release(identity_);
}

void ResultStreams::Stream::begin_write() { write_started_ns_.store(now_ns()); }

void ResultStreams::Stream::end_write() { write_started_ns_.store(0); }

void ResultStreams::watch() {
  pthread_setname_np(pthread_self(), "nhsim-streams");  // in top -H and /proc/PID/task
  const auto period = std::clamp(write_deadline_ / 4, std::chrono::milliseconds(50),
                                 std::chrono::milliseconds(1000));
  const std::int64_t deadline_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(write_deadline_).count();
  std::unique_lock lock(mutex_);
  while (!stopping_.wait_for(lock, period, [&] { return stop_; })) {
    const std::int64_t now = now_ns();
    for (Stream* stream : streams_) {
      const std::int64_t started = stream->write_started_ns_.load();
      if (started == 0 || now - started <= deadline_ns || stream->cut_.load()) continue;
      stream->cut_.store(true);
      log_job("", stream->identity_,
              "StreamResult cut off: a write waited more than " + seconds_text(write_deadline_) +
                  " for the client to read (--stream-write-deadline-seconds)",
              LogLevel::kWarning);
      stream->cancel_();
    }
  }
}

}  // namespace nhsim::server

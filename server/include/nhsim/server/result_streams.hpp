// The open StreamResult calls: capped per identity and in all, and each cut off when a write
// has waited too long for its client to read, so that a reader that stopped reading holds its
// thread and its piece of the result for a bounded time only.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "nhsim/server/stream_caps.hpp"

namespace nhsim::server {

/// Thread-safe; one watchdog thread checks the open streams' writes.
class ResultStreams {
 public:
  /// `write_deadline` > 0: how long one write may wait for the client.
  ResultStreams(StreamCapLimits caps, std::chrono::milliseconds write_deadline);
  /// Stops the watchdog. Precondition: no Stream is open.
  ~ResultStreams();
  ResultStreams(const ResultStreams&) = delete;
  ResultStreams& operator=(const ResultStreams&) = delete;

  /// One open stream, counted until it is destroyed.
  class Stream {
   public:
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    /// Around each write that may block on the client.
    void begin_write();
    void end_write();
    /// Whether the watchdog cut the stream off (its write waited past the deadline).
    bool cut() const { return cut_.load(); }

   private:
    friend class ResultStreams;
    Stream(ResultStreams& owner, std::string identity, std::function<void()> cancel)
        : owner_(owner), identity_(std::move(identity)), cancel_(std::move(cancel)) {}
    ResultStreams& owner_;
    const std::string identity_;
    const std::function<void()> cancel_;             // ends the call; called under owner_.mutex_
    std::atomic<std::int64_t> write_started_ns_{0};  // steady clock; 0: not writing
    std::atomic<bool> cut_{false};
  };

  /// A stream of `identity`; `cancel` ends its call (ServerContext::TryCancel: the blocked write
  /// then fails) and is called at most once, while the Stream exists. Null, with the reason in
  /// `refusal`, when a cap is reached.
  std::unique_ptr<Stream> open(const std::string& identity, std::function<void()> cancel,
                               std::string& refusal);

  std::chrono::milliseconds write_deadline() const { return write_deadline_; }
  int open_streams() const { return caps_.open(); }

 private:
  void watch();

  StreamCaps caps_;
  const std::chrono::milliseconds write_deadline_;
  std::mutex mutex_;
  std::condition_variable stopping_;
  bool stop_ = false;          // guarded by mutex_
  std::set<Stream*> streams_;  // guarded by mutex_
  std::thread watchdog_;
};

}  // namespace nhsim::server

// How many streams of one kind (result streams, job watches) are open, per identity and in all:
// an unread notebook iterator or a suspended laptop holds its stream, so one client must not be
// able to hold them all.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace nhsim::server {

/// The caps of one kind of stream; 0 = no cap. `total_flag` and `per_client_flag` name the
/// nhsimd flags in refusals.
struct StreamCapLimits {
  int max_open = 0;
  int max_open_per_client = 0;
  std::string total_flag;
  std::string per_client_flag;
};

/// Thread-safe counts of open streams against StreamCapLimits.
class StreamCaps {
 public:
  /// `what` names the streams in refusals ("result streams").
  StreamCaps(std::string what, StreamCapLimits limits)
      : what_(std::move(what)), limits_(std::move(limits)) {}

  /// Counts a stream of `identity` as open; returns why it cannot be (for RESOURCE_EXHAUSTED),
  /// empty when it was counted and must be release()d.
  std::string admit(const std::string& identity) {
    const std::lock_guard lock(mutex_);
    if (limits_.max_open > 0 && open_ >= limits_.max_open) {
      return "this server has " + std::to_string(open_) + " open " + what_ + ", its limit " +
             limits_.total_flag + "=" + std::to_string(limits_.max_open) +
             "; try again when one ends";
    }
    int& mine = open_per_identity_[identity];
    if (limits_.max_open_per_client > 0 && mine >= limits_.max_open_per_client) {
      return "you have " + std::to_string(mine) + " open " + what_ + ", this server's limit " +
             limits_.per_client_flag + "=" + std::to_string(limits_.max_open_per_client) +
             "; end one (or read it to its end) first";
    }
    ++mine;
    ++open_;
    return {};
  }

  /// Ends what admit(identity) counted.
  void release(const std::string& identity) {
    const std::lock_guard lock(mutex_);
    --open_;
    if (const auto it = open_per_identity_.find(identity); --it->second == 0) {
      open_per_identity_.erase(it);
    }
  }

  int open() const {
    const std::lock_guard lock(mutex_);
    return open_;
  }

 private:
  const std::string what_;
  const StreamCapLimits limits_;
  mutable std::mutex mutex_;
  int open_ = 0;                                  // guarded by mutex_
  std::map<std::string, int> open_per_identity_;  // guarded by mutex_; no zero entries
};

}  // namespace nhsim::server

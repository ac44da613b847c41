// A budget of bytes that concurrent reads may hold at once: a read of a large result waits for
// others to finish instead of multiplying the server's memory.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace nhsim::server {

/// Thread-safe. A read takes its bytes before it holds them and gives them back after.
class ReadBudget {
 public:
  /// `capacity` bytes in all (> 0).
  explicit ReadBudget(std::int64_t capacity) : capacity_(capacity) {}

  /// Bytes taken from the budget, given back when it is destroyed; false when none were taken.
  class Lease {
   public:
    Lease() = default;
    Lease(ReadBudget* budget, std::int64_t bytes) : budget_(budget), bytes_(bytes) {}
    Lease(Lease&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
      other.budget_ = nullptr;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (budget_ != nullptr) budget_->give_back(bytes_);
    }
    explicit operator bool() const { return budget_ != nullptr; }

   private:
    ReadBudget* budget_ = nullptr;
    std::int64_t bytes_ = 0;
  };

  /// Waits until `bytes` fit beside what other reads hold (a read larger than the capacity
  /// waits until it is alone), or until `deadline` (then the lease is empty).
  Lease take(std::int64_t bytes, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    const bool fits = returned_.wait_until(
        lock, deadline, [&] { return held_ == 0 || held_ + bytes <= capacity_; });
    if (!fits) return {};
    held_ += bytes;
    return {this, bytes};
  }

  std::int64_t capacity() const { return capacity_; }

 private:
  void give_back(std::int64_t bytes) {
    {
      const std::lock_guard lock(mutex_);
      held_ -= bytes;
    }
    returned_.notify_all();
  }

  const std::int64_t capacity_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::int64_t held_ = 0;  // guarded by mutex_
};

}  // namespace nhsim::server

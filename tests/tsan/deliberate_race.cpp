// A deliberate data race on a small nhsim structure, built only under TSan (NHSIM_SANITIZE=thread)
// and run by scripts/sanitize tsan with the same TSAN_OPTIONS and scripts/tsan.supp as the tests.
// The script requires TSan to report both races below, each naming this file in both racing
// stacks: proof that the suppressions (and the oneTBB hand-off annotations of core/src/tsan.hpp)
// hide no race whose accesses are nhsim's own code. Not a ctest: it must fail, and how it fails is
// what is checked.
//
//   1. Two std::threads increment a plain int member without a lock.
//   2. Two bodies of a tbb::parallel_for do the same while running at the same time, on oneTBB's
//      threads (uninstrumented frames below ours) and with the annotations the core's loop bodies
//      use: those order bodies that run one after the other, not ones that overlap.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "tsan.hpp"

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
  return 0;
}

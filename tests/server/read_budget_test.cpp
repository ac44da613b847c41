// The budget that bounds what concurrent GetResult calls hold.
#include "nhsim/server/read_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace nhsim::server {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

TEST(ReadBudget, AReadWaitsUntilItFitsBesideTheOthers) {
  ReadBudget budget(100);
  auto first = budget.take(60, Steady::now());
  ASSERT_TRUE(first);
  EXPECT_FALSE(budget.take(60, Steady::now() + milliseconds(50)));  // 120 > 100: waits, times out
  std::atomic<bool> second_taken = false;
  std::thread second([&] {
    const auto lease = budget.take(60, Steady::now() + std::chrono::seconds(10));
    second_taken = static_cast<bool>(lease);
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(second_taken);        // still waiting for the first
  { auto done = std::move(first); }  // the first read ends
  second.join();
  EXPECT_TRUE(second_taken);
  EXPECT_TRUE(budget.take(100, Steady::now()));  // all given back
}

TEST(ReadBudget, AReadLargerThanTheBudgetRunsAlone) {
  ReadBudget budget(100);
  {
    auto small = budget.take(10, Steady::now());
    ASSERT_TRUE(small);
    EXPECT_FALSE(budget.take(150, Steady::now() + milliseconds(20)));
  }
  auto large = budget.take(150, Steady::now());
  ASSERT_TRUE(large);
  EXPECT_FALSE(budget.take(1, Steady::now() + milliseconds(20)));
}

}  // namespace
}  // namespace nhsim::server

// nhsimd's log lines: JSON objects with escaped, bounded strings.
#include "nhsim/server/log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace nhsim::server {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

TEST(Log, ALineIsOneJsonObjectWithTimeLevelJobIdentityAndMessage) {
  const std::string line = log_json(LogLevel::kWarning, "job j1 queued", "j1", "alice");
  EXPECT_THAT(line, MatchesRegex("\\{\"time\":\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
                                 "[0-9]{2}\\.[0-9]{3}Z\",\"level\":\"warning\",\"job\":\"j1\","
                                 "\"identity\":\"alice\",\"msg\":\"job j1 queued\"\\}"));
  EXPECT_THAT(log_json(LogLevel::kInfo, "started"),
              EndsWith(",\"level\":\"info\",\"msg\":\"started\"}"));
}

TEST(Log, QuotesControlCharactersAndBrokenUtf8AreEscaped) {
  const std::string line = log_json(LogLevel::kError, "a\"b\\c\nd\te\x01 \xc3\xa9 \xff");
  EXPECT_THAT(line, HasSubstr(R"("msg":"a\"b\\c\u000ad\u0009e\u0001 é �"})"));
  EXPECT_THAT(line, Not(HasSubstr("\n")));
}

TEST(Log, LongMessagesAreCutAtACharacterBoundaryAndMarked) {
  std::string message(kMaxLogMessage - 1, 'x');
  message += "\xc3\xa9";  // a two-byte character across the limit
  message += std::string(1 << 20, 'y');
  const std::string line = log_json(LogLevel::kInfo, message);
  EXPECT_LT(line.size(), kMaxLogMessage + 200);
  EXPECT_THAT(line, HasSubstr("x... (" + std::to_string(message.size()) + " bytes)\"}"));
  EXPECT_THAT(line, Not(HasSubstr("\xc3")));
}

// Issue 49: unauthenticated calls each wrote a line, unthrottled (2434 in one run). A throttle
// lets one through per interval and counts the rest.
TEST(Log, AThrottleLetsOneLineThroughPerIntervalAndCountsTheRest) {
  LogThrottle throttle(std::chrono::seconds(10));
  const auto t0 = LogThrottle::Clock::time_point{} + std::chrono::hours(1);
  std::int64_t held = -1;
  EXPECT_TRUE(throttle.allow(held, t0));
  EXPECT_EQ(held, 0);
  int through = 0;
  for (int i = 1; i <= 1000; ++i) {
    through += throttle.allow(held, t0 + std::chrono::milliseconds(9 * i)) ? 1 : 0;
  }
  EXPECT_EQ(through, 0);  // all within 9 s of the first
  EXPECT_TRUE(throttle.allow(held, t0 + std::chrono::seconds(10)));
  EXPECT_EQ(held, 1000);  // the line says how many it stands for
  EXPECT_FALSE(throttle.allow(held, t0 + std::chrono::seconds(11)));
  EXPECT_TRUE(throttle.allow(held, t0 + std::chrono::seconds(30)));
  EXPECT_EQ(held, 1);
}

TEST(Log, DurationsAreShownInSecondsWithoutTrailingZeros) {
  EXPECT_EQ(seconds_text(std::chrono::seconds(60)), "60 s");
  EXPECT_EQ(seconds_text(std::chrono::milliseconds(2500)), "2.5 s");
  EXPECT_EQ(seconds_text(std::chrono::milliseconds(1)), "0.001 s");
}

}  // namespace
}  // namespace nhsim::server

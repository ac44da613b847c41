// client/progress.cpp: plain progress lines off a TTY, a redrawn bar on one, JSON lines for
// programs (nhsim run --progress json).
#include <gmock/gmock.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "nhsim/client/progress.hpp"

namespace nhsim::client {
namespace {

using ::testing::HasSubstr;

v1::Job job(v1::JobState state, std::int64_t done, std::int64_t total = 100,
            bool cancel_requested = false) {
  v1::Job j;
  j.set_job_id("abc");
  j.set_state(state);
  j.set_trajectories_done(done);
  j.set_trajectories_total(total);
  j.set_cancel_requested(cancel_requested);
  return j;
}

/// What the printer writes for `updates`, the k-th arriving k seconds after the first.
std::string printed(bool bar, const std::vector<v1::Job>& updates, const std::string& name = {}) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    ProgressPrinter progress(out, bar, name);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < updates.size(); ++k) {
      progress.update(updates[k], start + std::chrono::seconds(k));
    }
    progress.finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(ClientProgress, PlainLinesOnStateChangesAndEachTenthOfTheWork) {
  const std::string text =
      printed(false, {job(v1::QUEUED, 0), job(v1::RUNNING, 0), job(v1::RUNNING, 3),
                      job(v1::RUNNING, 9), job(v1::RUNNING, 10), job(v1::RUNNING, 15),
                      job(v1::RUNNING, 35), job(v1::SUCCEEDED, 100)});
  std::istringstream lines(text);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_EQ(all.size(), 5U) << text;
  EXPECT_EQ(all[0], "job abc QUEUED 0/100 trajectories");
  EXPECT_EQ(all[1], "job abc RUNNING 0/100 trajectories");            // running since t = 1 s
  EXPECT_EQ(all[2], "job abc RUNNING 10/100 trajectories  ETA 27s");  // 10 in 3 s, 90 to go
  EXPECT_EQ(all[3], "job abc RUNNING 35/100 trajectories  ETA 9s");   // 35 in 5 s, 65 to go
  EXPECT_EQ(all[4], "job abc SUCCEEDED 100/100 trajectories");
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(ClientProgress, BarRedrawsOneLine) {
  const std::string text = printed(true, {job(v1::RUNNING, 0), job(v1::RUNNING, 50)});
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 2);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);  // finish() ends the line
  EXPECT_THAT(text, HasSubstr("[###############---------------]  50.0%  50/100 trajectories"));
  EXPECT_THAT(text, HasSubstr("RUNNING    ETA 1s"));  // 50 in 1 s, 50 to go
}

TEST(ClientProgress, TheBarFollowsTheStepsWhereTheServerCountsThem) {
  // Two long trajectories: 0/2 done, the bar and the ETA from the steps taken.
  v1::Job first = job(v1::RUNNING, 0, 2), second = first;
  first.set_steps_total(40'000'000);
  second.set_steps_total(40'000'000);
  second.set_steps_done(10'000'000);
  const std::string text = printed(true, {first, second});
  EXPECT_THAT(text, HasSubstr("[#######-----------------------]  25.0%  0/2 trajectories"));
  EXPECT_THAT(text, HasSubstr("RUNNING    ETA 3s"));  // a quarter in 1 s, three to go
}

std::vector<std::string> lines_of(const std::string& text) {
  std::istringstream lines(text);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  return all;
}

// Issue 47 item 7: "214/800 (cancelling)" then "CANCELLED 171/800": while a cancel winds the job
// down, the server counts skipped runs as done. The count shown stays at the last one before the
// cancel until the final state.
TEST(ClientProgress, TheCountNeverGoesBackwardsWhileCancelling) {
  const auto all =
      lines_of(printed(false, {job(v1::RUNNING, 0, 800), job(v1::RUNNING, 150, 800),
                               job(v1::RUNNING, 214, 800, true), job(v1::RUNNING, 400, 800, true),
                               job(v1::CANCELLED, 171, 800, true)}));
  ASSERT_EQ(all.size(), 4U);
  EXPECT_EQ(all[0], "job abc RUNNING 0/800 trajectories");
  EXPECT_EQ(all[1], "job abc RUNNING 150/800 trajectories  ETA 4s");
  EXPECT_EQ(all[2], "job abc RUNNING 150/800 trajectories (cancelling)");  // no ETA
  EXPECT_EQ(all[3], "job abc CANCELLED 171/800 trajectories");

  // Seen first while cancelling: the count is not known.
  EXPECT_EQ(printed(false, {job(v1::RUNNING, 214, 800, true)}),
            "job abc RUNNING ?/800 trajectories (cancelling)\n");
  const std::string bar =
      printed(true, {job(v1::RUNNING, 400, 800), job(v1::RUNNING, 500, 800, true)});
  EXPECT_THAT(bar, HasSubstr("400/800 trajectories  CANCELLING"));
  EXPECT_THAT(bar, ::testing::Not(HasSubstr("500/800")));
}

// Issue 47 item 8: `nhsim run` progress read "job  RUNNING ...", naming nothing.
TEST(ClientProgress, ANamedRunStartsItsLinesWithTheName) {
  EXPECT_EQ(printed(false, {job(v1::RUNNING, 0), job(v1::SUCCEEDED, 100)}, "run tiny.json"),
            "run tiny.json RUNNING 0/100 trajectories\nrun tiny.json SUCCEEDED 100/100 "
            "trajectories\n");
  EXPECT_THAT(printed(true, {job(v1::RUNNING, 50)}, "run tiny.json"),
              ::testing::StartsWith("\rrun tiny.json  [###############"));
}

/// What JsonProgress writes for (done, total) updates at the given milliseconds, then finish().
std::string json_printed(const std::vector<std::pair<int, std::int64_t>>& updates) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    JsonProgress progress(out);  // at most one line per 200 ms
    const auto start = std::chrono::steady_clock::now();
    for (const auto& [ms, done] : updates) {
      progress.update(done, 10, start + std::chrono::milliseconds(ms));
    }
    progress.finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

/// One JSON line parsed back (protobuf's parser; the order of the fields is free).
google::protobuf::Struct parsed(const std::string& line) {
  google::protobuf::Struct value;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(line, &value).ok()) << line;
  return value;
}

TEST(ClientProgress, JsonLinesAreThrottledAndEndWithTheLastCount) {
  const auto all = lines_of(json_printed({{0, 0}, {50, 1}, {100, 2}, {250, 3}, {300, 4}}));
  // The first; the one 250 ms after it; the one held back, written by finish().
  ASSERT_EQ(all.size(), 3U);
  const double expected[] = {0, 3, 4};
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto fields = parsed(all[k]).fields();
    ASSERT_EQ(fields.size(), 2U) << all[k];
    EXPECT_EQ(fields.at("trajectories_done").number_value(), expected[k]);
    EXPECT_EQ(fields.at("trajectories_total").number_value(), 10);
  }
  // Nothing held back: finish() writes nothing more.
  EXPECT_EQ(lines_of(json_printed({{0, 10}})).size(), 1U);
}

TEST(ClientProgress, JsonErrorLinesEscapeTheMessage) {
  const std::string message = "integrators[0].h: must be \"finite\"\n";
  const std::string line = json_error_line("INVALID_ARGUMENT", message);
  ASSERT_EQ(line.find('\n'), line.size() - 1) << line;  // one line
  const auto error = parsed(line).fields().at("error").struct_value().fields();
  EXPECT_EQ(error.at("code").string_value(), "INVALID_ARGUMENT");
  EXPECT_EQ(error.at("message").string_value(), message);
}

TEST(ClientProgress, EtaText) {
  EXPECT_EQ(eta_text(44.6), "45s");
  EXPECT_EQ(eta_text(725.0), "12m05s");
  EXPECT_EQ(eta_text(3 * 3600 + 7 * 60 + 20), "3h07m");
}

}  // namespace
}  // namespace nhsim::client

#include "nhsim/client/progress.hpp"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "nhsim/client/report.hpp"

namespace nhsim::client {

std::string eta_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  }
  return text;
}

std::string ProgressPrinter::done_text(const v1::Job& job) {
  const bool cancelling = job.cancel_requested() && job.state() == v1::RUNNING;
  if (!cancelling) {
    done_before_cancel_ = std::max(done_before_cancel_.value_or(0), job.trajectories_done());
    return std::to_string(job.trajectories_done());
  }
  return done_before_cancel_ ? std::to_string(*done_before_cancel_) : "?";
}

void ProgressPrinter::update(const v1::Job& job, std::chrono::steady_clock::time_point now) {
  // The fraction and the ETA in trajectory-steps where the server counts them (they advance
  // within long trajectories), else in trajectories (nhsim run).
  const bool by_steps = job.steps_total() > 0;
  const std::int64_t work_done = by_steps ? job.steps_done() : job.trajectories_done();
  const std::int64_t work_total = by_steps ? job.steps_total() : job.trajectories_total();
  if (job.state() == v1::RUNNING && !started_) {
    started_ = now;
    done_at_start_ = work_done;
  }
  const std::string done = done_text(job);
  const bool cancelling = job.cancel_requested() && job.state() == v1::RUNNING;
  std::string eta;
  if (job.state() == v1::RUNNING && !cancelling && started_ && work_done > done_at_start_) {
    const double elapsed = std::chrono::duration<double>(now - *started_).count();
    const double rate = static_cast<double>(work_done - done_at_start_) / elapsed;
    eta = "ETA " + eta_text(static_cast<double>(work_total - work_done) / rate);
  }
  const double total = static_cast<double>(work_total);
  const double fraction = !(total > 0) || done == "?" ? 0.0
                          : by_steps ? std::clamp(static_cast<double>(work_done) / total, 0.0, 1.0)
                                     : std::clamp(std::stod(done) / total, 0.0, 1.0);
  const std::string status = job_status(job, done);
  const std::string name = name_.empty() ? "job " + job.job_id() : name_;
  if (bar_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '-');
    std::fprintf(out_, "\r%s%s[%s] %5.1f%%  %s/%lld trajectories  %-10s %-12s", name_.c_str(),
                 name_.empty() ? "" : "  ", bar.c_str(), 100.0 * fraction, done.c_str(),
                 static_cast<long long>(job.trajectories_total()),
                 cancelling ? "CANCELLING" : v1::JobState_Name(job.state()).c_str(), eta.c_str());
    drawn_ = true;
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (job.state() != last_state_ || decile > last_decile_ ||
        job.cancel_requested() != last_cancel_requested_) {
      std::fprintf(out_, "%s %s%s\n", name.c_str(), status.c_str(),
                   eta.empty() ? "" : ("  " + eta).c_str());
    }
    last_decile_ = std::max(last_decile_, decile);
  }
  last_state_ = job.state();
  last_cancel_requested_ = job.cancel_requested();
  std::fflush(out_);
}

void ProgressPrinter::finish() {
  if (bar_ && drawn_) {
    std::fputc('\n', out_);
    std::fflush(out_);
    drawn_ = false;
  }
}

namespace {

/// `value` as one line of JSON (protobuf's printer does the escaping).
std::string json_line(const google::protobuf::Struct& value) {
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(value, &json);
  if (!status.ok())
    throw std::runtime_error("JSON printing failed: " + std::string(status.message()));
  return json + '\n';
}

}  // namespace

void JsonProgress::write(std::int64_t done, std::int64_t total) {
  google::protobuf::Struct line;
  auto& fields = *line.mutable_fields();
  fields["trajectories_done"].set_number_value(static_cast<double>(done));  // exact below 2^53
  fields["trajectories_total"].set_number_value(static_cast<double>(total));
  std::fputs(json_line(line).c_str(), out_);
  std::fflush(out_);
}

void JsonProgress::update(std::int64_t done, std::int64_t total,
                          std::chrono::steady_clock::time_point now) {
  if (written_ && now - *written_ < interval_) {
    held_.emplace(done, total);
    return;
  }
  write(done, total);
  written_ = now;
  held_.reset();
}

void JsonProgress::finish() {
  if (held_) write(held_->first, held_->second);
  held_.reset();
}

std::string json_error_line(std::string_view code, std::string_view message) {
  google::protobuf::Struct error;
  auto& fields = *(*error.mutable_fields())["error"].mutable_struct_value()->mutable_fields();
  fields["code"].set_string_value(std::string(code));
  fields["message"].set_string_value(std::string(message));
  return json_line(error);
}

}  // namespace nhsim::client

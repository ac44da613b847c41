#include "nhsim/client/progress.hpp"

#include <algorithm>

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

void ProgressPrinter::update(const v1::Job& job, std::chrono::steady_clock::time_point now) {
  if (job.state() == v1::RUNNING && !started_) {
    started_ = now;
    done_at_start_ = job.trajectories_done();
  }
  std::string eta;
  if (job.state() == v1::RUNNING && started_ && job.trajectories_done() > done_at_start_) {
    const double elapsed = std::chrono::duration<double>(now - *started_).count();
    const double rate = static_cast<double>(job.trajectories_done() - done_at_start_) / elapsed;
    eta = "ETA " +
          eta_text(static_cast<double>(job.trajectories_total() - job.trajectories_done()) / rate);
  }
  const double total = static_cast<double>(job.trajectories_total());
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(job.trajectories_done()) / total, 0.0, 1.0) : 0.0;
  if (bar_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '-');
    std::fprintf(out_, "\r[%s] %5.1f%%  %lld/%lld trajectories  %-10s %-12s", bar.c_str(),
                 100.0 * fraction, static_cast<long long>(job.trajectories_done()),
                 static_cast<long long>(job.trajectories_total()),
                 v1::JobState_Name(job.state()).c_str(), eta.c_str());
    drawn_ = true;
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (job.state() != last_state_ || decile > last_decile_) {
      std::fprintf(out_, "%s%s\n", job_line(job).c_str(), eta.empty() ? "" : ("  " + eta).c_str());
    }
    last_decile_ = std::max(last_decile_, decile);
  }
  last_state_ = job.state();
  std::fflush(out_);
}

void ProgressPrinter::finish() {
  if (bar_ && drawn_) {
    std::fputc('\n', out_);
    std::fflush(out_);
    drawn_ = false;
  }
}

}  // namespace nhsim::client

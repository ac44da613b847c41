#include "nhsim/client/progress.hpp"

#include <algorithm>

#include "nhsim/client/report.hpp"

namespace nhsim::client {

void ProgressPrinter::update(const v1::Job& job) {
  const double total = static_cast<double>(job.trajectories_total());
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(job.trajectories_done()) / total, 0.0, 1.0) : 0.0;
  if (bar_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '-');
    std::fprintf(out_, "\r[%s] %5.1f%%  %lld/%lld trajectories  %-10s", bar.c_str(),
                 100.0 * fraction, static_cast<long long>(job.trajectories_done()),
                 static_cast<long long>(job.trajectories_total()),
                 v1::JobState_Name(job.state()).c_str());
    drawn_ = true;
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (job.state() != last_state_ || decile > last_decile_) {
      std::fprintf(out_, "%s\n", job_line(job).c_str());
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

// Prometheus metrics of nhsimd, served in the text format over HTTP (prometheus-cpp pull).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "nhsim/v1/ensemble.pb.h"

namespace prometheus {
class Counter;
class Exposer;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace nhsim::server {

/// The server's metrics:
///   nhsim_jobs{state="queued|running|succeeded|failed|cancelled"}  gauge, jobs in each state
///   nhsim_trajectories_completed_total   counter, trajectory runs done (ok + failed)
///   nhsim_steps_completed_total          counter, integration steps taken
///   (both counters grow when a job ends, by what its result reports)
///   nhsim_job_duration_seconds           histogram, start → end of each job that ran
/// All methods are thread-safe.
class Metrics {
 public:
  /// Serves GET /metrics on `bind_address` ("host:port"; port 0 picks a free port); an empty
  /// address serves nothing (the metrics are still counted). Throws std::runtime_error when
  /// the address cannot be bound.
  explicit Metrics(const std::string& bind_address);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  /// The bound HTTP port; 0 when nothing is served.
  int port() const { return port_; }

  /// A job moved from state `from` to state `to` (`from` = JOB_STATE_UNSPECIFIED for a new job).
  void job_transition(nhsim::v1::JobState from, nhsim::v1::JobState to);
  void add_trajectories(std::int64_t n);
  void add_steps(std::int64_t n);
  /// Records one job's run time in seconds.
  void observe_job_duration(double seconds);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::array<prometheus::Gauge*, 6> jobs_{};  // indexed by JobState; [0] unused
  prometheus::Counter* trajectories_ = nullptr;
  prometheus::Counter* steps_ = nullptr;
  prometheus::Histogram* duration_ = nullptr;
  int port_ = 0;
};

}  // namespace nhsim::server

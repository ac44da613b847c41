// Prometheus metrics of nhsimd, served in the text format over HTTP (prometheus-cpp pull).
#pragma once

#include <grpcpp/support/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nhsim/ensemble.hpp"
#include "nhsim/v1/ensemble.pb.h"

namespace prometheus {
class Collectable;
class Counter;
class Exposer;
template <typename T>
class Family;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace nhsim::server {

/// How a job ended, for nhsim_jobs_finished_total{outcome}.
enum class JobOutcome { kSucceeded, kAllTrajectoriesFailed, kFailed, kCancelled };

/// The server's metrics (deploy/prometheus/ has alert and recording rules over them):
///   nhsim_rpc_requests_total{method,code}      counter, RPCs answered (gRPC status name)
///   nhsim_rpc_duration_seconds{method}         histogram, call start → status sent
///   nhsim_submissions_total{outcome,code}      counter, SubmitEnsemble accepted / rejected
///   nhsim_queue_wait_seconds                   histogram, submit → first start of a job
///   nhsim_oldest_queued_job_age_seconds        gauge, how long the oldest queued job has waited
///                                              (0 with none; refreshed every second)
///   nhsim_open_result_streams, nhsim_open_watches
///                                              gauges, StreamResult and WatchJob calls open
///                                              (refreshed every second)
///   nhsim_jobs{state}                          gauge, jobs in each state
///   nhsim_jobs_finished_total{outcome}         counter, succeeded | all_trajectories_failed |
///                                              failed | cancelled
///   nhsim_trajectories_completed_total         counter, trajectory runs done (ok + failed)
///   nhsim_steps_completed_total                counter, integration steps taken
///   nhsim_trajectories_failed_total{reason}    counter, newton_not_converged | non_finite |
///                                              initial_condition | other
///   (these three grow as chunks of trajectories complete, while the job runs)
///   nhsim_job_duration_seconds                 histogram, start → end of each job that ran
///   nhsim_health_serving                       gauge, 1 SERVING, 0 NOT_SERVING
///   process_resident_memory_bytes, process_cpu_seconds_total, process_threads,
///   process_open_fds, process_start_time_seconds     from /proc at each scrape
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

  /// A call of `method` (the last part of the gRPC path, e.g. "SubmitEnsemble") was answered
  /// with `code` after `seconds`.
  void rpc_done(std::string_view method, grpc::StatusCode code, double seconds);
  /// A job moved from state `from` to state `to` (`from` = JOB_STATE_UNSPECIFIED for a new job).
  void job_transition(nhsim::v1::JobState from, nhsim::v1::JobState to);
  /// A job started for the first time, `seconds` after it was submitted.
  void observe_queue_wait(double seconds);
  /// The oldest job still queued has waited `seconds` (0: none queued).
  void set_oldest_queued_age(double seconds);
  /// nhsim_open_result_streams and nhsim_open_watches.
  void set_open_streams(int result_streams, int watches);
  /// A chunk of trajectories completed: its runs, steps and failures are counted.
  void add_completed(const nhsim::PartialResult& chunk);
  /// A job ended after running `seconds`.
  void job_finished(JobOutcome outcome, double seconds);
  /// What health checks answer: SERVING (true) or NOT_SERVING.
  void set_serving(bool serving);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Collectable> process_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Family<prometheus::Counter>* rpc_requests_ = nullptr;
  prometheus::Family<prometheus::Histogram>* rpc_duration_ = nullptr;
  prometheus::Family<prometheus::Counter>* submissions_ = nullptr;
  prometheus::Family<prometheus::Counter>* trajectories_failed_ = nullptr;
  std::array<prometheus::Gauge*, 6> jobs_{};        // indexed by JobState; [0] unused
  std::array<prometheus::Counter*, 4> finished_{};  // indexed by JobOutcome
  prometheus::Histogram* queue_wait_ = nullptr;
  prometheus::Gauge* oldest_queued_ = nullptr;
  prometheus::Gauge* open_result_streams_ = nullptr;
  prometheus::Gauge* open_watches_ = nullptr;
  prometheus::Counter* trajectories_ = nullptr;
  prometheus::Counter* steps_ = nullptr;
  prometheus::Histogram* duration_ = nullptr;
  prometheus::Gauge* serving_ = nullptr;
  int port_ = 0;
};

}  // namespace nhsim::server

#include "nhsim/server/metrics.hpp"

#include <absl/status/status.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <exception>
#include <stdexcept>

#include "nhsim/server/process_metrics.hpp"

namespace nhsim::server {
namespace {

/// A bounded label for a failure reason (the reasons themselves carry numbers).
const char* reason_label(const std::string& reason) {
  if (reason.rfind("Newton", 0) == 0) return "newton_not_converged";
  if (reason.rfind("state became non-finite", 0) == 0) return "non_finite";
  if (reason.rfind("energy shell", 0) == 0) return "initial_condition";
  return "other";
}

const prometheus::Histogram::BucketBoundaries kLatencyBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
const prometheus::Histogram::BucketBoundaries kJobBuckets = {0.01, 0.1,  1,    10,       60,
                                                             300,  1800, 3600, 3 * 3600, 24 * 3600};

}  // namespace

Metrics::Metrics(const std::string& bind_address)
    : registry_(std::make_shared<prometheus::Registry>()) {
  rpc_requests_ = &prometheus::BuildCounter()
                       .Name("nhsim_rpc_requests_total")
                       .Help("gRPC calls answered, by method and status code")
                       .Register(*registry_);
  rpc_duration_ = &prometheus::BuildHistogram()
                       .Name("nhsim_rpc_duration_seconds")
                       .Help("gRPC call latency, from the call's start until its status is sent")
                       .Register(*registry_);
  submissions_ = &prometheus::BuildCounter()
                      .Name("nhsim_submissions_total")
                      .Help("SubmitEnsemble calls, accepted or rejected, by status code")
                      .Register(*registry_);
  auto& jobs = prometheus::BuildGauge()
                   .Name("nhsim_jobs")
                   .Help("Jobs in the server's store, by state")
                   .Register(*registry_);
  jobs_[v1::QUEUED] = &jobs.Add({{"state", "queued"}});
  jobs_[v1::RUNNING] = &jobs.Add({{"state", "running"}});
  jobs_[v1::SUCCEEDED] = &jobs.Add({{"state", "succeeded"}});
  jobs_[v1::FAILED] = &jobs.Add({{"state", "failed"}});
  jobs_[v1::CANCELLED] = &jobs.Add({{"state", "cancelled"}});
  auto& finished = prometheus::BuildCounter()
                       .Name("nhsim_jobs_finished_total")
                       .Help(
                           "Jobs that ended, by outcome (all_trajectories_failed: SUCCEEDED, "
                           "but no trajectory of any integrator choice succeeded)")
                       .Register(*registry_);
  finished_[static_cast<int>(JobOutcome::kSucceeded)] = &finished.Add({{"outcome", "succeeded"}});
  finished_[static_cast<int>(JobOutcome::kAllTrajectoriesFailed)] =
      &finished.Add({{"outcome", "all_trajectories_failed"}});
  finished_[static_cast<int>(JobOutcome::kFailed)] = &finished.Add({{"outcome", "failed"}});
  finished_[static_cast<int>(JobOutcome::kCancelled)] = &finished.Add({{"outcome", "cancelled"}});
  queue_wait_ = &prometheus::BuildHistogram()
                     .Name("nhsim_queue_wait_seconds")
                     .Help("Time from a job's submission until it starts running")
                     .Register(*registry_)
                     .Add({}, kJobBuckets);
  trajectories_ = &prometheus::BuildCounter()
                       .Name("nhsim_trajectories_completed_total")
                       .Help(
                           "Trajectory runs completed (ok + failed), counted as chunks of "
                           "trajectories complete")
                       .Register(*registry_)
                       .Add({});
  steps_ = &prometheus::BuildCounter()
                .Name("nhsim_steps_completed_total")
                .Help("Integration steps taken, counted as chunks of trajectories complete")
                .Register(*registry_)
                .Add({});
  trajectories_failed_ = &prometheus::BuildCounter()
                              .Name("nhsim_trajectories_failed_total")
                              .Help("Trajectory runs that failed, by reason")
                              .Register(*registry_);
  duration_ = &prometheus::BuildHistogram()
                   .Name("nhsim_job_duration_seconds")
                   .Help("Run time of jobs, from start to end")
                   .Register(*registry_)
                   .Add({}, kJobBuckets);
  oldest_queued_ = &prometheus::BuildGauge()
                        .Name("nhsim_oldest_queued_job_age_seconds")
                        .Help(
                            "How long the oldest job still queued has waited since it was "
                            "submitted (0 with none queued): grows while the queue is stuck, "
                            "when nhsim_queue_wait_seconds records nothing")
                        .Register(*registry_)
                        .Add({});
  open_result_streams_ = &prometheus::BuildGauge()
                              .Name("nhsim_open_result_streams")
                              .Help("StreamResult calls open (at most --max-result-streams)")
                              .Register(*registry_)
                              .Add({});
  open_watches_ = &prometheus::BuildGauge()
                       .Name("nhsim_open_watches")
                       .Help("WatchJob calls open (at most --max-watchers)")
                       .Register(*registry_)
                       .Add({});
  serving_ = &prometheus::BuildGauge()
                  .Name("nhsim_health_serving")
                  .Help(
                      "1 while health checks answer SERVING, 0 while draining or when jobs "
                      "cannot make progress")
                  .Register(*registry_)
                  .Add({});
  if (bind_address.empty()) return;
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(bind_address, 1);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serve metrics on " + bind_address + ": " + e.what());
  }
  exposer_->RegisterCollectable(registry_);
  process_ = std::make_shared<ProcessMetrics>();  // the exposer keeps a weak_ptr only
  exposer_->RegisterCollectable(process_);
  const auto ports = exposer_->GetListeningPorts();
  port_ = ports.empty() ? 0 : ports.front();
}

Metrics::~Metrics() = default;

void Metrics::rpc_done(std::string_view method, grpc::StatusCode code, double seconds) {
  const std::string code_name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  const std::string method_name(method);
  rpc_requests_->Add({{"method", method_name}, {"code", code_name}}).Increment();
  rpc_duration_->Add({{"method", method_name}}, kLatencyBuckets).Observe(seconds);
  if (method == "SubmitEnsemble") {
    submissions_
        ->Add({{"outcome", code == grpc::StatusCode::OK ? "accepted" : "rejected"},
               {"code", code_name}})
        .Increment();
  }
}

void Metrics::job_transition(v1::JobState from, v1::JobState to) {
  if (from > 0 && from < static_cast<int>(jobs_.size())) jobs_[from]->Decrement();
  if (to > 0 && to < static_cast<int>(jobs_.size())) jobs_[to]->Increment();
}

void Metrics::observe_queue_wait(double seconds) { queue_wait_->Observe(seconds); }

void Metrics::add_completed(const PartialResult& chunk) {
  for (const ChoicePartial& choice : chunk.choices) {
    if (choice.ok + choice.failed > 0) {
      trajectories_->Increment(static_cast<double>(choice.ok + choice.failed));
    }
    if (choice.steps > 0) steps_->Increment(static_cast<double>(choice.steps));
    for (const TrajectoryFailure& failure : choice.failures) {
      trajectories_failed_->Add({{"reason", reason_label(failure.reason)}}).Increment();
    }
  }
}

void Metrics::set_oldest_queued_age(double seconds) { oldest_queued_->Set(seconds); }

void Metrics::set_open_streams(int result_streams, int watches) {
  open_result_streams_->Set(result_streams);
  open_watches_->Set(watches);
}

void Metrics::job_finished(JobOutcome outcome, double seconds) {
  finished_[static_cast<int>(outcome)]->Increment();
  duration_->Observe(seconds);
}

void Metrics::set_serving(bool serving) { serving_->Set(serving ? 1.0 : 0.0); }

}  // namespace nhsim::server

#include "nhsim/server/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <exception>
#include <stdexcept>

namespace nhsim::server {

Metrics::Metrics(const std::string& bind_address)
    : registry_(std::make_shared<prometheus::Registry>()) {
  auto& jobs = prometheus::BuildGauge()
                   .Name("nhsim_jobs")
                   .Help("Jobs in the server's store, by state")
                   .Register(*registry_);
  jobs_[v1::QUEUED] = &jobs.Add({{"state", "queued"}});
  jobs_[v1::RUNNING] = &jobs.Add({{"state", "running"}});
  jobs_[v1::SUCCEEDED] = &jobs.Add({{"state", "succeeded"}});
  jobs_[v1::FAILED] = &jobs.Add({{"state", "failed"}});
  jobs_[v1::CANCELLED] = &jobs.Add({{"state", "cancelled"}});
  trajectories_ = &prometheus::BuildCounter()
                       .Name("nhsim_trajectories_completed_total")
                       .Help("Trajectory runs completed (ok + failed), all jobs")
                       .Register(*registry_)
                       .Add({});
  steps_ = &prometheus::BuildCounter()
                .Name("nhsim_steps_completed_total")
                .Help("Integration steps taken, all trajectories of finished jobs")
                .Register(*registry_)
                .Add({});
  duration_ = &prometheus::BuildHistogram()
                   .Name("nhsim_job_duration_seconds")
                   .Help("Run time of jobs, from start to end")
                   .Register(*registry_)
                   .Add({}, prometheus::Histogram::BucketBoundaries{0.01, 0.1, 1, 10, 60, 300, 1800,
                                                                    3600, 3 * 3600, 24 * 3600});
  if (bind_address.empty()) return;
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(bind_address, 1);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serve metrics on " + bind_address + ": " + e.what());
  }
  exposer_->RegisterCollectable(registry_);
  const auto ports = exposer_->GetListeningPorts();
  port_ = ports.empty() ? 0 : ports.front();
}

Metrics::~Metrics() = default;

void Metrics::job_transition(v1::JobState from, v1::JobState to) {
  if (from > 0 && from < static_cast<int>(jobs_.size())) jobs_[from]->Decrement();
  if (to > 0 && to < static_cast<int>(jobs_.size())) jobs_[to]->Increment();
}

void Metrics::add_trajectories(std::int64_t n) {
  if (n > 0) trajectories_->Increment(static_cast<double>(n));
}

void Metrics::add_steps(std::int64_t n) {
  if (n > 0) steps_->Increment(static_cast<double>(n));
}

void Metrics::observe_job_duration(double seconds) { duration_->Observe(seconds); }

}  // namespace nhsim::server

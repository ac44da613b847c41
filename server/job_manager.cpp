#include "nhsim/server/job_manager.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include "nhsim/server/log.hpp"

namespace nhsim::server {
namespace {

using Clock = std::chrono::system_clock;

std::string quoted_label(const std::string& label) {
  return label.empty() ? std::string() : " label=\"" + label + "\"";
}

}  // namespace

JobManager::JobManager(std::unique_ptr<Executor> executor, Metrics& metrics)
    : executor_(std::move(executor)), metrics_(metrics), id_engine_(std::random_device{}()) {
  worker_ = std::thread([this] { work(); });
}

JobManager::~JobManager() { stop(); }

v1::Job JobManager::submit(v1::SubmitEnsembleRequest request, EnsembleSpec spec) {
  JobRecord record;
  record.label = request.label();
  record.request = std::make_shared<const v1::SubmitEnsembleRequest>(std::move(request));
  record.trajectories_total =
      trajectory_count(spec) * static_cast<std::int64_t>(spec.integrators.size());
  record.spec = std::make_shared<const EnsembleSpec>(std::move(spec));
  record.created_time = Clock::now();
  const std::lock_guard lock(queue_mutex_);
  for (;;) {  // ids are random; retry in the (unlikely) case of a collision
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(id_engine_()));
    if (!store_.get(id)) {
      record.id = id;
      break;
    }
  }
  if (stopping_) {
    record.cancel->store(true);
    record.state = v1::CANCELLED;
    record.finished_time = record.created_time;
  }
  const v1::Job job = to_job(record);
  store_.insert(record);
  metrics_.job_transition(v1::JOB_STATE_UNSPECIFIED, record.state);
  log_line("job " + record.id + " " + (stopping_ ? "cancelled (server stopping)" : "queued") +
           ": system=" + record.spec->system + " trajectories=" +
           std::to_string(record.trajectories_total) + quoted_label(record.label));
  if (!stopping_) {
    queue_.push_back(record.id);
    queue_changed_.notify_one();
  }
  return job;
}

std::optional<v1::Job> JobManager::cancel(const std::string& id) {
  v1::JobState before = v1::JOB_STATE_UNSPECIFIED;
  const bool found = store_.update(id, [&](JobRecord& record) {
    before = record.state;
    if (is_terminal(record.state)) return;
    record.cancel->store(true);
    if (record.state == v1::QUEUED) {
      record.state = v1::CANCELLED;
      record.finished_time = Clock::now();
    }
  });
  if (!found) return std::nullopt;
  if (before == v1::QUEUED) {
    metrics_.job_transition(v1::QUEUED, v1::CANCELLED);
    log_line("job " + id + " cancelled before it started");
  } else if (before == v1::RUNNING) {
    log_line("job " + id + " cancel requested");
  }
  return to_job(*store_.get(id));
}

void JobManager::stop() {
  std::call_once(stopped_, [this] {
    std::vector<std::string> unfinished;
    {
      const std::lock_guard lock(queue_mutex_);
      stopping_ = true;
      unfinished.assign(queue_.begin(), queue_.end());
      queue_.clear();
      if (!running_.empty()) unfinished.push_back(running_);
    }
    queue_changed_.notify_all();
    for (const auto& id : unfinished) cancel(id);  // the running job stops at its cancel flag
    if (worker_.joinable()) worker_.join();
    store_.shutdown();
  });
}

void JobManager::work() {
  for (;;) {
    std::string id;
    {
      std::unique_lock lock(queue_mutex_);
      queue_changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      id = std::move(queue_.front());
      queue_.pop_front();
      running_ = id;
    }
    run(id);
    const std::lock_guard lock(queue_mutex_);
    running_.clear();
  }
}

void JobManager::run(const std::string& id) {
  std::shared_ptr<const EnsembleSpec> spec;
  std::shared_ptr<const v1::SubmitEnsembleRequest> request;
  std::shared_ptr<std::atomic<bool>> cancel_flag;
  bool start = false;
  const auto started = Clock::now();
  store_.update(id, [&](JobRecord& record) {
    if (record.state != v1::QUEUED) return;  // cancelled while queued
    record.state = v1::RUNNING;
    record.started_time = started;
    spec = record.spec;
    request = record.request;
    cancel_flag = record.cancel;
    start = true;
  });
  if (!start) return;
  metrics_.job_transition(v1::QUEUED, v1::RUNNING);
  log_line("job " + id + " running (" + executor_->name() + " executor)");

  const JobRun job{id, *request, *spec, *cancel_flag, [&](std::int64_t done, std::int64_t total) {
                     store_.update(id, [&](JobRecord& record) {
                       record.trajectories_done = done;
                       record.trajectories_total = total;
                     });
                   }};

  std::shared_ptr<const EnsembleResult> result;
  v1::JobState state = v1::FAILED;
  std::string error;
  try {
    result = std::make_shared<const EnsembleResult>(executor_->run(job));
    state = result->cancelled ? v1::CANCELLED : v1::SUCCEEDED;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception in the ensemble runner";
  }
  const auto finished = Clock::now();
  const double seconds = std::chrono::duration<double>(finished - started).count();

  // Counted from the result, not from progress: the core's progress also counts trajectories
  // skipped by a cancellation.
  std::int64_t done = 0;
  std::int64_t failed = 0;
  std::int64_t steps = 0;
  if (result) {
    for (const auto& integrator : result->integrators) {
      done += integrator.trajectories_ok + integrator.trajectories_failed;
      failed += integrator.trajectories_failed;
      steps += integrator.steps_completed;
    }
  }
  metrics_.add_trajectories(done);
  metrics_.add_steps(steps);
  metrics_.observe_job_duration(seconds);
  // Metrics first: once a client can see the terminal state, the metrics already count it.
  metrics_.job_transition(v1::RUNNING, state);
  store_.update(id, [&](JobRecord& record) {
    record.state = state;
    record.error = error;
    record.finished_time = finished;
    record.result = result;
    if (result) record.trajectories_done = done;
  });

  char summary[160];
  std::snprintf(summary, sizeof summary,
                " after %.3f s: %lld trajectories done (%lld failed), %lld steps", seconds,
                static_cast<long long>(done), static_cast<long long>(failed),
                static_cast<long long>(steps));
  std::string line = "job " + id + " " + state_name(state) + summary;
  if (!error.empty()) line += ": " + error;
  log_line(line);
}

}  // namespace nhsim::server

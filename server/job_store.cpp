#include "nhsim/server/job_store.hpp"

#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <stdexcept>

namespace nhsim::server {
namespace {

void set_time(std::chrono::system_clock::time_point time, google::protobuf::Timestamp* out) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  *out = google::protobuf::util::TimeUtil::NanosecondsToTimestamp(nanos);
}

}  // namespace

bool is_terminal(v1::JobState state) {
  return state == v1::SUCCEEDED || state == v1::FAILED || state == v1::CANCELLED;
}

std::string state_name(v1::JobState state) { return v1::JobState_Name(state); }

std::string system_name(const v1::SubmitEnsembleRequest& request) {
  if (!request.has_custom_system()) return request.system();
  return request.custom_system().name().empty() ? "custom_system" : request.custom_system().name();
}

v1::Job to_job(const JobRecord& record) {
  v1::Job job;
  job.set_job_id(record.id);
  job.set_state(record.state);
  job.set_trajectories_done(record.trajectories_done);
  job.set_trajectories_total(record.trajectories_total);
  job.set_steps_done(is_terminal(record.state)
                         ? record.steps_total
                         : std::min(record.steps_total, record.steps_done->load()));
  job.set_steps_total(record.steps_total);
  job.set_error(record.error);
  job.set_label(record.label);
  job.set_owner(record.owner);
  job.set_system(record.system);
  job.set_cancel_requested(record.cancel && record.cancel->load());
  const std::chrono::system_clock::time_point unset{};
  if (record.created_time != unset) set_time(record.created_time, job.mutable_created_time());
  if (record.started_time != unset) set_time(record.started_time, job.mutable_started_time());
  if (record.finished_time != unset) set_time(record.finished_time, job.mutable_finished_time());
  return job;
}

void JobStore::insert(JobRecord record) {
  const std::lock_guard lock(mutex_);
  record.version = 1;
  const std::string id = record.id;
  if (!jobs_.emplace(id, std::move(record)).second) {
    throw std::invalid_argument("job id already taken: " + id);
  }
}

std::optional<JobRecord> JobStore::get(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return it->second;
}

std::optional<JobStore::Stamp> JobStore::stamp(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return Stamp{it->second.version, it->second.steps_done->load(std::memory_order_relaxed)};
}

bool JobStore::update(const std::string& id, const std::function<void(JobRecord&)>& change) {
  {
    const std::lock_guard lock(mutex_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return false;
    change(it->second);
    ++it->second.version;
  }
  return true;
}

bool JobStore::erase(const std::string& id) {
  {
    const std::lock_guard lock(mutex_);
    if (jobs_.erase(id) == 0) return false;
  }
  return true;
}

std::vector<JobRecord> JobStore::list() const {
  std::vector<JobRecord> out;
  {
    const std::lock_guard lock(mutex_);
    out.reserve(jobs_.size());
    for (const auto& [id, record] : jobs_) out.push_back(record);
  }
  std::sort(out.begin(), out.end(),
            [](const JobRecord& a, const JobRecord& b) { return a.seq < b.seq; });
  return out;
}

std::int64_t JobStore::count_if(const std::function<bool(const JobRecord&)>& predicate) const {
  const std::lock_guard lock(mutex_);
  std::int64_t n = 0;
  for (const auto& [id, record] : jobs_) n += predicate(record) ? 1 : 0;
  return n;
}

void JobStore::shutdown() {
  const std::lock_guard lock(mutex_);
  shut_down_ = true;
}

bool JobStore::is_shut_down() const {
  const std::lock_guard lock(mutex_);
  return shut_down_;
}

}  // namespace nhsim::server

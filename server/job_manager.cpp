#include "nhsim/server/job_manager.hpp"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iomanip>
#include <sstream>
#include <utility>
#include <vector>

#include "nhsim/server/log.hpp"
#include "nhsim/wire/auth.hpp"
#include "nhsim/wire/fingerprint.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/spec_hash.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::server {
namespace {

using Clock = std::chrono::system_clock;

/// The label for a log line: empty, or ` label="..."`, cut to 64 bytes (labels are free text of
/// any length).
std::string quoted_label(const std::string& label) {
  if (label.empty()) return {};
  if (label.size() <= 64) return " label=\"" + label + "\"";
  return " label=\"" + label.substr(0, 64) + "...\" (" + std::to_string(label.size()) + " bytes)";
}

std::int64_t to_ms(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

Clock::time_point from_ms(std::int64_t ms) {
  return Clock::time_point(std::chrono::milliseconds(ms));
}

/// Every trajectory-step of the job (Job.steps_total).
std::int64_t trajectory_steps(const Problem& problem) {
  return static_cast<std::int64_t>(estimate_cost(problem).trajectory_steps);
}

/// The trajectory-steps of the trajectories `partial` covers, in every choice.
std::int64_t steps_covered(const Problem& problem, const PartialResult& partial) {
  const std::int64_t n = trajectory_count(problem.spec());
  return n > 0 ? trajectory_steps(problem) / n * covered_count(partial) : 0;
}

/// The stored form of a job's terminal fields.
StoredJob terminal(const JobRecord& record) {
  StoredJob job;
  job.id = record.id;
  job.state = record.state;
  job.finished_ms = to_ms(record.finished_time);
  job.error = record.error;
  job.trajectories_done = record.trajectories_done;
  job.cancel_requested = record.cancel->load();
  if (record.result) job.result = *record.result;
  return job;
}

/// Why a running job is stopped: its checkpoint (statistics, outputs and failure records of the
/// trajectories done) alone takes more than the bound of its admitted memory.
std::string estimate_exceeded(const PartialResult& partial, std::size_t bytes, double admitted) {
  std::int64_t failed = 0;
  std::size_t records = 0;
  for (const ChoicePartial& c : partial.choices) {
    failed += c.failed;
    records += c.failures.size();
  }
  const auto text = [](double x) {
    std::ostringstream out;
    out << std::setprecision(3) << x;
    return out.str();
  };
  const auto mib = [&](double b) { return text(b / (1024.0 * 1024.0)); };
  return "RESOURCE_EXHAUSTED: the checkpoint of " + std::to_string(covered_count(partial)) +
         " of its trajectories takes " + mib(static_cast<double>(bytes)) + " MiB, beyond " +
         text(kMemoryBoundFactor) + " x the " + mib(admitted) +
         " MiB of memory it was admitted with (" + std::to_string(failed) +
         " trajectory runs failed, " + std::to_string(records) +
         " failure records); stopped before it could take the server's memory";
}

}  // namespace

double job_memory_bytes(const CostEstimate& cost) {
  return cost.statistics_bytes + kOutputCopies * cost.output_bytes;
}

JobManager::JobManager(std::unique_ptr<Executor> executor, Metrics& metrics,
                       std::unique_ptr<DurableStore> durable, JobManagerOptions options)
    : executor_(std::move(executor)),
      options_(options),
      metrics_(metrics),
      durable_(std::move(durable)) {
  if (durable_) recover();
  evict_beyond_limits();  // limits lowered since the last start take effect now
  for (int k = 0; k < std::max(options_.max_running_jobs, 1); ++k) {
    workers_.emplace_back([this] { work(); });
  }
  reaper_ = std::thread([this] { reap(); });
}

JobManager::~JobManager() { stop(); }

void JobManager::persist(const char* what, const std::string& id,
                         const std::function<void()>& write) {
  if (!durable_) return;
  std::string failure;
  try {
    write();
  } catch (const std::exception& e) {
    failure = "job store: cannot store " + std::string(what) + " of job " + id + ": " + e.what();
    log_job(id, "", failure, LogLevel::kError);
  }
  const std::lock_guard lock(store_problem_mutex_);
  store_problem_ = failure;
}

std::string JobManager::problem() {
  {
    const std::lock_guard lock(store_problem_mutex_);
    // After a failed write (a full disk), a small write tells when the store takes writes
    // again, so that health recovers by itself rather than at the next job's write.
    if (!store_problem_.empty() && durable_ && durable_->probe()) {
      log_line("job store: writable again (" + store_problem_ + ")");
      store_problem_.clear();
    }
    if (!store_problem_.empty()) return store_problem_;
  }
  return executor_->problem();
}

double JobManager::oldest_queued_seconds() {
  // queue_ is in submission order (submit and recover append in it), so the first job in it that
  // is still QUEUED is the oldest; one cancelled while queued stays in queue_ until a worker
  // skips it, and does not count.
  const std::lock_guard lock(queue_mutex_);
  for (const Queued& queued : queue_) {
    const std::optional<JobRecord> record = store_.get(queued.id);
    if (record && record->state == v1::QUEUED) {
      return std::chrono::duration<double>(Clock::now() - record->created_time).count();
    }
  }
  return 0.0;
}

void JobManager::recover() {
  for (QuarantinedJob& job : durable_->load_quarantine()) {
    quarantine_.emplace(job.id, std::move(job));
  }
  int resumed = 0;
  int stored = 0;
  // Written after load() returns: its callback must not call back into the store.
  std::vector<QuarantinedJob> damaged_jobs;
  std::vector<StoredJob> failed_jobs;
  durable_->load([&](StoredJob&& job) {
    ++stored;
    JobRecord record;
    record.id = job.id;
    record.owner = job.owner;
    record.seq = ++last_seq_;  // load() gives the jobs in submission order
    record.state = job.state;
    record.created_time = from_ms(job.created_ms);
    record.started_time = from_ms(job.started_ms);
    record.finished_time = from_ms(job.finished_ms);
    record.trajectories_done = job.trajectories_done;
    record.trajectories_total = job.trajectories_total;
    record.steps_total = job.steps_total;
    record.error = job.error;
    record.has_result = job.result_bytes > 0;
    record.result_size = job.result_bytes;
    record.cancel->store(job.cancel_requested);
    record.halt->store(job.cancel_requested);
    auto request = std::make_shared<v1::SubmitEnsembleRequest>();
    if (job.damage.empty() && !request->ParseFromString(job.request)) {
      job.damage = "its stored request is damaged";
    }
    if (!job.damage.empty()) {  // answered with DATA_LOSS from now on, never silently missing
      QuarantinedJob damaged{job.id, job.owner, job.damage, to_ms(Clock::now())};
      log_job(job.id, job.owner, "job " + job.id + " quarantined: " + job.damage, LogLevel::kError);
      quarantine_.emplace(job.id, damaged);
      damaged_jobs.push_back(std::move(damaged));
      return;
    }
    record.label = request->label();
    record.system = system_name(*request);
    record.request_key = job.request_key;
    const bool unfinished = !is_terminal(record.state);
    // The spec's hash serves a resumed job's checkpoint and an idempotency key's check; a
    // restart does not hash the other finished jobs' requests.
    if (unfinished || !record.request_key.empty()) record.spec_hash = wire::spec_sha256(*request);
    if (!record.request_key.empty()) request_keys_[{record.owner, record.request_key}] = record.id;
    if (!unfinished) {  // a finished job keeps neither its request nor its result in memory
      metrics_.job_transition(v1::JOB_STATE_UNSPECIFIED, record.state);
      store_.insert(std::move(record));
      return;
    }
    record.request = request;
    std::string cannot_resume;
    try {
      record.problem = std::make_shared<const Problem>(wire::from_proto(*request));
      record.steps_total = trajectory_steps(*record.problem);  // also for a job stored before
      record.memory_bytes = job_memory_bytes(estimate_cost(*record.problem));
    } catch (const std::exception& e) {
      cannot_resume = e.what();
    }
    // A checkpoint is only a head start: a damaged one is dropped and the job runs again from
    // its first trajectory (same bits), instead of failing.
    if (cannot_resume.empty() && !job.checkpoint.empty()) {
      try {
        v1::PartialResult checkpoint;
        if (!checkpoint.ParseFromString(job.checkpoint) ||
            checkpoint.spec_sha256() != record.spec_hash) {
          throw std::invalid_argument("it does not parse or belongs to another spec");
        }
        if (checkpoint.fingerprint() != wire::bits_fingerprint()) {  // an upgrade, another CPU
          throw std::invalid_argument("it was written by another build or math library (" +
                                      checkpoint.fingerprint() + ")");
        }
        record.resume_from = std::make_shared<const PartialResult>(wire::from_proto(checkpoint));
        record.steps_done->store(steps_covered(*record.problem, *record.resume_from));
        record.checkpoints = 1;  // in the store: a live view before this run's first
      } catch (const std::exception& e) {
        log_job(record.id, record.owner,
                "job " + record.id + ": its checkpoint cannot be used (" + e.what() +
                    "); it runs again from the start",
                LogLevel::kWarning);
      }
    }
    if (!cannot_resume.empty()) {
      record.state = v1::FAILED;
      record.error = "cannot be resumed after a restart: " + cannot_resume;
      record.finished_time = Clock::now();
      record.request.reset();
      record.problem.reset();
      failed_jobs.push_back(terminal(record));
    } else {
      record.state = v1::QUEUED;  // RUNNING resumes: queued again until the worker takes it
      queue_.push_back({record.id, record.owner, record.problem && is_short(*record.problem)});
      record.request.reset();  // queued: read from the store when it starts
      record.problem.reset();
      ++resumed;
      log_job(
          record.id, record.owner,
          "job " + record.id + " recovered: resumes " +
              (record.resume_from ? "from a checkpoint of " +
                                        std::to_string(job.trajectories_done) + " trajectory runs"
                                  : std::string("from the start")));
    }
    metrics_.job_transition(v1::JOB_STATE_UNSPECIFIED, record.state);
    store_.insert(std::move(record));
  });
  for (const QuarantinedJob& job : damaged_jobs) {
    persist("its quarantine", job.id, [&] { durable_->quarantine(job); });
  }
  for (const StoredJob& job : failed_jobs) {
    persist("its failure", job.id, [&] { durable_->finish(job); });
  }
  log_line("job store " + durable_->path().string() + ": " + std::to_string(stored) + " jobs, " +
           std::to_string(resumed) + " to resume" +
           (quarantine_.empty() ? "" : ", " + std::to_string(quarantine_.size()) + " quarantined"));
}

std::optional<QuarantinedJob> JobManager::quarantined(const std::string& id) const {
  const std::lock_guard lock(quarantine_mutex_);
  const auto it = quarantine_.find(id);
  if (it == quarantine_.end()) return std::nullopt;
  return it->second;
}

std::vector<QuarantinedJob> JobManager::quarantined_jobs() const {
  const std::lock_guard lock(quarantine_mutex_);
  std::vector<QuarantinedJob> jobs;
  for (const auto& [id, job] : quarantine_) jobs.push_back(job);
  return jobs;
}

std::shared_ptr<const std::string> JobManager::read_result(const JobRecord& record) {
  if (record.result) return record.result;
  if (!durable_) throw std::runtime_error("job " + record.id + " has no result");
  const Reading reading(*this, record.id);
  return std::make_shared<const std::string>(durable_->read_result(record.id));
}

JobManager::Reading::Reading(JobManager& jobs, const std::string& id) : jobs_(jobs), id_(id) {
  const std::lock_guard lock(jobs_.readers_mutex_);
  if (!jobs_.store_.get(id)) throw JobGone("job_id: no job '" + id + "' (evicted or deleted)");
  ++jobs_.readers_[id];
}

JobManager::Reading::~Reading() {
  const std::lock_guard lock(jobs_.readers_mutex_);
  if (--jobs_.readers_[id_] == 0) jobs_.readers_.erase(id_);
}

void JobManager::read_result_pieces(
    const JobRecord& record, std::size_t piece,
    const std::function<bool(std::string_view, std::int64_t)>& each) {
  if (!record.result && durable_) {
    const Reading reading(*this, record.id);  // not evicted while it is read
    durable_->read_result_pieces(record.id, piece, each);
    return;
  }
  for_each_piece(record.result ? std::string_view(*record.result) : "", piece, each);
}

void for_each_piece(std::string_view bytes, std::size_t piece,
                    const std::function<bool(std::string_view, std::int64_t)>& each) {
  const auto total = static_cast<std::int64_t>(bytes.size());
  std::size_t offset = 0;
  do {  // at least one piece, also for an empty serialization
    if (!each(bytes.substr(offset, piece), total)) return;
    offset += piece;
  } while (offset < bytes.size());
}

std::shared_ptr<const std::string> JobManager::snapshot(const JobRecord& record) {
  if (record.checkpoints == 0 || !record.problem) return nullptr;
  const std::lock_guard lock(snapshots_mutex_);
  if (const auto it = snapshots_.find(record.id);
      it != snapshots_.end() && it->second.checkpoints >= record.checkpoints) {
    return it->second.result;
  }
  const std::string bytes = durable_            ? durable_->read_checkpoint(record.id)
                            : record.checkpoint ? *record.checkpoint
                                                : std::string();
  if (bytes.empty()) return nullptr;  // the job ended meanwhile
  v1::PartialResult checkpoint;
  if (!checkpoint.ParseFromString(bytes)) {
    throw DamagedRecord("the checkpoint of job " + record.id + " does not parse");
  }
  v1::EnsembleResult message =
      wire::to_proto(finish_prefix(*record.problem, wire::from_proto(checkpoint), 1));
  message.set_job_id(record.id);
  message.set_label(record.label);
  auto result = std::make_shared<const std::string>(message.SerializeAsString());
  // Kept only while the job runs: its end erases the entry after its state changes.
  if (const auto now = store_.get(record.id); now && !is_terminal(now->state)) {
    snapshots_[record.id] = {record.checkpoints, result};
  }
  return result;
}

v1::Job JobManager::submit(v1::SubmitEnsembleRequest request, Problem problem,
                           const std::string& owner, const std::string& request_key,
                           double memory_bytes) {
  JobRecord record;
  record.owner = owner;
  record.spec_hash = wire::spec_sha256(request);
  record.request_key = request_key;
  record.label = request.label();
  record.system = system_name(request);
  record.request = std::make_shared<const v1::SubmitEnsembleRequest>(std::move(request));
  const EnsembleSpec& spec = problem.spec();
  record.trajectories_total = trajectory_count(spec) * choice_count(spec);
  record.problem = std::make_shared<const Problem>(std::move(problem));
  record.steps_total = trajectory_steps(*record.problem);
  record.memory_bytes = memory_bytes;
  record.created_time = Clock::now();
  const bool short_job = is_short(*record.problem);
  const std::lock_guard lock(queue_mutex_);
  if (!request_key.empty()) {
    const auto known = request_keys_.find({owner, request_key});
    if (known != request_keys_.end()) {
      if (const std::optional<JobRecord> earlier = store_.get(known->second)) {
        if (earlier->spec_hash != record.spec_hash) {
          throw KeyReused("idempotency-key " + request_key + ": already used for job " +
                          earlier->id + ", whose spec differs");
        }
        log_job(earlier->id, owner,
                "job " + earlier->id + " submitted again with its idempotency key: answered");
        return to_job(*earlier);
      }
    }
  }
  if (static_cast<int>(queue_.size()) >= options_.max_queued_jobs) {
    throw QueueFull("queue: " + std::to_string(queue_.size()) +
                    " jobs wait to run, this server's limit --max-queued-jobs=" +
                    std::to_string(options_.max_queued_jobs) + "; submit again later");
  }
  const std::int64_t unfinished = store_.count_if(
      [&](const JobRecord& r) { return r.owner == owner && !is_terminal(r.state); });
  if (unfinished >= options_.max_jobs_per_client) {
    throw QueueFull("queue: " + owner + " has " + std::to_string(unfinished) +
                    " unfinished jobs, this server's limit --max-jobs-per-client=" +
                    std::to_string(options_.max_jobs_per_client) +
                    "; wait for one to end or cancel one");
  }
  record.seq = ++last_seq_;
  record.id = wire::random_hex(16);  // 128 bits: a collision is not a practical concern
  const bool cancelled = stopping_ && !durable_;  // durable: stored, runs at the next start
  if (cancelled) {
    record.cancel->store(true);
    record.halt->store(true);
    record.state = v1::CANCELLED;
    record.finished_time = record.created_time;
  }
  if (durable_) {
    StoredJob stored;
    stored.id = record.id;
    stored.owner = record.owner;
    stored.state = record.state;
    stored.request = record.request->SerializeAsString();
    stored.created_ms = to_ms(record.created_time);
    stored.trajectories_total = record.trajectories_total;
    stored.steps_total = record.steps_total;
    stored.request_key = record.request_key;
    try {
      durable_->insert(stored);  // before the job is acknowledged
    } catch (const std::exception& e) {
      const std::string failure = std::string("job store: cannot store a job: ") + e.what();
      log_job(record.id, owner, failure, LogLevel::kError);
      {
        const std::lock_guard problem_lock(store_problem_mutex_);
        store_problem_ = failure;
      }
      throw StoreUnavailable(  // without the server's paths and SQLite's words
          "the server cannot store jobs now (its disk may be full); submit again later");
    }
  }
  const v1::Job job = to_job(record);
  const std::string system = record.problem->spec().system;
  if (durable_) {  // a queued job's request and spec are read from the store when it starts
    record.request.reset();
    record.problem.reset();
  }
  store_.insert(record);
  if (!request_key.empty()) request_keys_[{owner, request_key}] = record.id;
  metrics_.job_transition(v1::JOB_STATE_UNSPECIFIED, record.state);
  log_job(
      record.id, record.owner,
      "job " + record.id + " " +
          (cancelled   ? "cancelled (server stopping)"
           : stopping_ ? "stored (server stopping: runs at the next start)"
                       : "queued") +
          ": system=" + system + " trajectories=" + std::to_string(record.trajectories_total) +
          " memory_estimate_mib=" + std::to_string(std::llround(memory_bytes / (1024.0 * 1024.0))) +
          quoted_label(record.label));
  if (!stopping_) {
    queue_.push_back({record.id, record.owner, short_job});
    queue_changed_.notify_all();  // the worker that is free may not be one that can take it
  }
  return job;
}

std::optional<v1::Job> JobManager::cancel(const std::string& id, const std::string& by) {
  v1::JobState before = v1::JOB_STATE_UNSPECIFIED;
  std::optional<JobRecord> cancelled_queued;
  std::string owner;
  const bool found = store_.update(id, [&](JobRecord& record) {
    before = record.state;
    owner = record.owner;
    if (is_terminal(record.state)) return;
    record.cancel->store(true);
    record.halt->store(true);
    if (record.state == v1::QUEUED) {
      record.state = v1::CANCELLED;
      record.finished_time = Clock::now();
      record.request.reset();  // a finished job keeps neither
      record.problem.reset();
      cancelled_queued = record;
    }
  });
  if (!found) return std::nullopt;
  if (cancelled_queued) {
    persist("its cancellation", id, [&] { durable_->finish(terminal(*cancelled_queued)); });
    metrics_.job_transition(v1::QUEUED, v1::CANCELLED);
    log_job(id, owner, "job " + id + " cancelled before it started, by " + by);
  } else if (before == v1::RUNNING) {
    persist("its cancel request", id, [&] { durable_->set_cancel_requested(id); });
    log_job(id, owner, "job " + id + " cancel requested by " + by);
  }
  return to_job(*store_.get(id));
}

void JobManager::stop() {
  std::call_once(stopped_, [this] {
    std::vector<std::string> unfinished;
    std::vector<std::string> running;
    {
      const std::lock_guard lock(queue_mutex_);
      stopping_ = true;
      for (const Queued& queued : queue_) unfinished.push_back(queued.id);
      queue_.clear();
      for (const auto& [id, owner] : running_) running.push_back(id);
    }
    queue_changed_.notify_all();
    stop_requested_.notify_all();
    if (durable_) {
      // Drain: the running job stops at its next chunk and keeps its last checkpoint; queued
      // jobs stay queued in the durable store. All resume at the next start.
      for (const auto& id : running) {
        store_.update(id, [](JobRecord& record) { record.halt->store(true); });
      }
    } else {
      unfinished.insert(unfinished.end(), running.begin(), running.end());
      for (const auto& id : unfinished) cancel(id);  // running jobs stop at their flags
    }
    for (auto& worker : workers_) worker.join();
    if (reaper_.joinable()) reaper_.join();
    store_.shutdown();
  });
}

Removal JobManager::remove(const std::string& id, bool while_read) {
  const auto record = store_.get(id);
  if (!record) {
    const std::lock_guard lock(quarantine_mutex_);
    if (!quarantine_.contains(id)) return Removal::kNotFound;
    persist("its removal", id, [&] { durable_->erase_quarantined(id); });
    quarantine_.erase(id);
    return Removal::kRemoved;
  }
  if (!is_terminal(record->state)) return Removal::kNotFinished;
  {
    // Under readers_mutex_: a read either registered before (the job stays until it ends,
    // unless deleted while read) or finds the job gone, never a job half removed.
    const std::lock_guard lock(readers_mutex_);
    if (readers_.contains(id) && !while_read) return Removal::kBeingRead;
    persist("its removal", id, [&] { durable_->erase(id); });
    if (!store_.erase(id)) return Removal::kNotFound;  // removed meanwhile
  }
  if (!record->request_key.empty()) {
    const std::lock_guard lock(queue_mutex_);
    request_keys_.erase({record->owner, record->request_key});
  }
  metrics_.job_transition(record->state, v1::JOB_STATE_UNSPECIFIED);
  return Removal::kRemoved;
}

int JobManager::evict_beyond_limits() {
  std::vector<JobRecord> finished = store_.list();
  std::erase_if(finished, [](const JobRecord& r) { return !is_terminal(r.state); });
  std::stable_sort(finished.begin(), finished.end(), [](const JobRecord& a, const JobRecord& b) {
    return a.finished_time > b.finished_time;  // newest first: they are kept first
  });
  const auto over = [](std::int64_t value, std::int64_t limit) {
    return limit > 0 && value > limit;
  };
  const auto bytes = [](double mb) { return static_cast<std::int64_t>(mb * 1024 * 1024); };
  struct Kept {
    std::int64_t jobs = 0, bytes = 0;
  };
  std::map<std::string, Kept> kept;
  Kept all;
  std::vector<std::string> evicted;
  for (const JobRecord& record : finished) {
    Kept& mine = kept[record.owner];
    const bool newest_of_owner = mine.jobs == 0;
    if (!newest_of_owner &&
        (over(mine.jobs + 1, options_.keep_finished_jobs_per_client) ||
         over(mine.bytes + record.result_size, bytes(options_.keep_finished_mb_per_client)) ||
         over(all.jobs + 1, options_.keep_finished_jobs) ||
         over(all.bytes + record.result_size, bytes(options_.keep_finished_mb)))) {
      evicted.push_back(record.id);
      continue;
    }
    for (Kept* k : {&mine, &all}) {
      ++k->jobs;
      k->bytes += record.result_size;
    }
  }
  int removed = 0;
  for (const std::string& id : evicted) removed += remove(id) == Removal::kRemoved;
  if (removed > 0) {
    ::malloc_trim(0);
    log_line("evicted " + std::to_string(removed) +
             " finished jobs beyond the retention limits (jobs and result bytes kept, per "
             "identity and in all)");
  }
  return removed;
}

void JobManager::reap() {
  const auto period = std::clamp<std::chrono::seconds>(
      options_.keep_finished_for / 10, std::chrono::seconds(1), std::chrono::seconds(60));
  for (;;) {
    {
      std::unique_lock lock(queue_mutex_);
      if (stop_requested_.wait_for(lock, period, [&] { return stopping_; })) return;
    }
    const auto cutoff = Clock::now() - options_.keep_finished_for;
    int evicted = 0;
    for (const JobRecord& record : store_.list()) {
      if (is_terminal(record.state) && record.finished_time < cutoff &&
          remove(record.id) == Removal::kRemoved) {
        ++evicted;
      }
    }
    if (evicted > 0) {
      ::malloc_trim(0);  // give the results' memory back to the system
      log_line("evicted " + std::to_string(evicted) + " jobs finished more than " +
               std::to_string(options_.keep_finished_for.count()) + " s ago");
    }
  }
}

int JobManager::running_cap() const {
  if (options_.max_running_per_client > 0) return options_.max_running_per_client;
  return std::max(options_.max_running_jobs - 1, 1);
}

std::string JobManager::waiting_reason(const std::string& id) {
  const std::lock_guard lock(queue_mutex_);
  const auto queued =
      std::find_if(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.id == id; });
  if (queued == queue_.end()) return {};
  const int cap = running_cap();
  const auto mine = std::count_if(running_.begin(), running_.end(), [&](const auto& running) {
    return running.second == queued->owner;
  });
  if (mine >= cap + (queued->short_job ? 1 : 0)) {
    return "its identity " + queued->owner + " runs " + std::to_string(mine) +
           (mine == 1 ? " job" : " jobs") + ", the most one identity runs at once (" +
           (queued->short_job ? "a short job beyond " : "") + "--max-running-per-client " +
           std::to_string(cap) + ")";
  }
  const auto ahead = queued - queue_.begin();
  if (static_cast<int>(running_.size()) >= options_.max_running_jobs) {
    return "every runner is busy (--max-running-jobs " + std::to_string(options_.max_running_jobs) +
           "); " + std::to_string(ahead) + (ahead == 1 ? " job" : " jobs") + " queued before it";
  }
  return "starting";
}

bool JobManager::is_short(const Problem& problem) const {
  return estimate_cost(problem).trajectory_steps <= options_.short_job_steps;
}

std::deque<JobManager::Queued>::iterator JobManager::next_to_run() {
  std::map<std::string, int> running;  // per owner
  for (const auto& [id, owner] : running_) ++running[owner];
  const int cap = running_cap();
  auto best = queue_.end();
  int best_rank = 0;
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    const int n = running[it->owner];
    if (n >= cap + (it->short_job ? 1 : 0)) continue;
    // The oldest job of the owner with the fewest running (queue_ is oldest first); a short job
    // beyond its owner's cap only when no job within its owner's cap waits.
    const int rank = n < cap ? n : cap + 1 + n;
    if (best == queue_.end() || rank < best_rank) {
      best = it;
      best_rank = rank;
    }
  }
  return best;
}

void JobManager::work() {
  for (;;) {
    std::string id;
    {
      std::unique_lock lock(queue_mutex_);
      auto next = queue_.end();
      queue_changed_.wait(lock, [&] {
        if (stopping_) return true;
        next = next_to_run();
        return next != queue_.end();
      });
      if (stopping_) return;
      id = next->id;
      running_.emplace(id, next->owner);
      queue_.erase(next);
    }
    run(id);
    const std::lock_guard lock(queue_mutex_);
    running_.erase(id);
    queue_changed_.notify_all();  // a job its owner's cap held back may run now
  }
}

void JobManager::load_spec(JobRecord& record) {
  auto request = std::make_shared<v1::SubmitEnsembleRequest>();
  if (!request->ParseFromString(durable_->read_request(record.id))) {
    throw DamagedRecord("the stored request of job " + record.id + " does not parse");
  }
  record.problem = std::make_shared<const Problem>(wire::from_proto(*request),
                                                   [&record] { return record.halt->load(); });
  record.request = std::move(request);
  store_.update(record.id, [&](JobRecord& r) {  // for the live view while it runs
    r.request = record.request;
    r.problem = record.problem;
  });
}

void JobManager::end_unstarted(JobRecord& record, v1::JobState state, const std::string& error) {
  record.state = state;
  record.error = error;
  record.finished_time = Clock::now();
  persist("its end", record.id, [&] { durable_->finish(terminal(record)); });
  metrics_.job_transition(v1::QUEUED, state);
  metrics_.job_finished(state == v1::CANCELLED ? JobOutcome::kCancelled : JobOutcome::kFailed, 0.0);
  store_.update(record.id, [&](JobRecord& r) {
    r.state = record.state;
    r.error = record.error;
    r.finished_time = record.finished_time;
    r.request.reset();
    r.problem.reset();
    r.resume_from.reset();
  });
  log_job(record.id, record.owner,
          "job " + record.id + " " + state_name(state) + " before it started" +
              (error.empty() ? "" : ": " + error),
          state == v1::FAILED ? LogLevel::kError : LogLevel::kInfo);
}

void JobManager::run(const std::string& id) {
  std::optional<JobRecord> taken;
  const auto started = Clock::now();
  store_.update(id, [&](JobRecord& record) {
    if (record.state != v1::QUEUED) return;  // cancelled while queued
    record.state = v1::RUNNING;
    if (record.started_time == Clock::time_point{}) record.started_time = started;
    taken = record;
  });
  if (!taken) return;
  if (!taken->problem) {
    try {
      load_spec(*taken);
    } catch (const Abandoned&) {  // cancelled, or halted by a shutdown (resumes at the next start)
      if (taken->cancel->load()) end_unstarted(*taken, v1::CANCELLED, "");
      return;
    } catch (const std::exception& e) {
      end_unstarted(*taken, v1::FAILED, std::string("cannot start: ") + e.what());
      return;
    }
  }
  const JobRecord& record = *taken;
  if (record.started_time == started) {  // the first start (not a resume after a restart)
    metrics_.observe_queue_wait(
        std::chrono::duration<double>(started - record.created_time).count());
  }
  persist("its start", id, [&] { durable_->set_running(id, to_ms(record.started_time)); });
  metrics_.job_transition(v1::QUEUED, v1::RUNNING);
  log_job(id, record.owner, "job " + id + " running (" + executor_->name() + " executor)");

  const std::int64_t choices = choice_count(record.problem->spec());
  JobRun job{.id = id,
             .owner = record.owner,
             .request = *record.request,
             .problem = *record.problem,
             .spec_hash = record.spec_hash,
             .cancel = *record.cancel,
             .halt = *record.halt,
             .resume_from = record.resume_from.get(),
             .steps = record.steps_done.get(),
             .progress =
                 [&](std::int64_t done, std::int64_t total) {
                   store_.update(id, [&](JobRecord& r) {
                     r.trajectories_done = done;
                     r.trajectories_total = total;
                   });
                 },
             .checkpoint = {},  // set below
             .completed = [&](const PartialResult& chunk) { metrics_.add_completed(chunk); }};
  job.checkpoint = [&](const PartialResult& partial) {
    const std::int64_t covered = covered_count(partial);
    auto bytes = std::make_shared<const std::string>(
        wire::to_proto(partial, *record.request).SerializeAsString());
    if (record.memory_bytes > 0 &&
        static_cast<double>(bytes->size()) > kMemoryBoundFactor * record.memory_bytes) {
      throw std::runtime_error(estimate_exceeded(partial, bytes->size(), record.memory_bytes));
    }
    persist("a checkpoint", id, [&] { durable_->save_checkpoint(id, *bytes, covered * choices); });
    store_.update(id, [&](JobRecord& r) {
      ++r.checkpoints;
      if (!durable_) r.checkpoint = bytes;  // else read back from the store when asked for
    });
  };

  std::shared_ptr<const std::string> result;  // serialized
  v1::JobState state = v1::FAILED;
  std::string error;
  std::int64_t done = 0;
  std::int64_t failed = 0;
  std::int64_t steps = 0;
  try {
    // At most two copies of the per-trajectory outputs at a time (they may be most of the
    // job's memory): the core's result is freed once converted, the message once serialized.
    v1::EnsembleResult message;
    {
      const EnsembleResult core = executor_->run(job);
      store_.update(id, [](JobRecord& r) { r.checkpoint.reset(); });  // before the conversion
      // Counted from the result, not from progress: the core's progress also counts
      // trajectories skipped by a cancellation. A sweep's are its cases'.
      auto count = [&](const EnsembleResult& r) {
        for (const auto& integrator : r.integrators) {
          done += integrator.trajectories_ok + integrator.trajectories_failed;
          failed += integrator.trajectories_failed;
          steps += integrator.steps_completed;
        }
      };
      count(core);
      for (const SweepCaseResult& c : core.cases) count(c.result);
      state = core.cancelled ? v1::CANCELLED : v1::SUCCEEDED;
      message = wire::to_proto(core);
    }
    message.set_job_id(id);
    message.set_label(record.label);
    result = std::make_shared<const std::string>(message.SerializeAsString());
    v1::EnsembleResult().Swap(&message);  // frees its memory (Clear() keeps capacity)
  } catch (const Interrupted&) {
    log_job(id, record.owner,
            "job " + id + " interrupted by shutdown: resumes from its last checkpoint at the " +
                "next start");
    return;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception in the executor";
  }
  const auto finished = Clock::now();
  const double seconds = std::chrono::duration<double>(finished - started).count();

  const bool all_failed = state == v1::SUCCEEDED && done > 0 && failed == done;
  metrics_.job_finished(state == v1::FAILED      ? JobOutcome::kFailed
                        : state == v1::CANCELLED ? JobOutcome::kCancelled
                        : all_failed             ? JobOutcome::kAllTrajectoriesFailed
                                                 : JobOutcome::kSucceeded,
                        seconds);
  JobRecord ended = record;
  ended.state = state;
  ended.error = error;
  ended.finished_time = finished;
  ended.result = result;
  if (result) ended.trajectories_done = done;
  // Stored first: once a client can see the terminal state, it survives a crash. A result that
  // is stored is read from the store when asked for; one that could not be is kept in memory.
  bool stored = false;
  persist("its result", id, [&] {
    durable_->finish(terminal(ended));
    stored = true;
  });
  // Metrics next: once a client can see the terminal state, the metrics already count it.
  metrics_.job_transition(v1::RUNNING, state);
  store_.update(id, [&](JobRecord& r) {
    r.state = state;
    r.error = error;
    r.finished_time = finished;
    r.has_result = result != nullptr;
    r.result_size = result ? static_cast<std::int64_t>(result->size()) : 0;
    if (!stored) r.result = result;
    r.request.reset();
    r.problem.reset();
    r.resume_from.reset();
    r.checkpoint.reset();
    if (result) r.trajectories_done = done;
  });
  {
    const std::lock_guard lock(snapshots_mutex_);
    snapshots_.erase(id);
  }

  char summary[160];
  std::snprintf(summary, sizeof summary,
                " after %.3f s: %lld trajectories done (%lld failed), %lld steps", seconds,
                static_cast<long long>(done), static_cast<long long>(failed),
                static_cast<long long>(steps));
  std::string line = "job " + id + " " + state_name(state) + summary;
  if (all_failed) line += ": every trajectory run failed";
  if (!error.empty()) line += ": " + error;
  log_job(id, record.owner, line, state == v1::FAILED ? LogLevel::kError : LogLevel::kInfo);
  if (evict_beyond_limits() == 0) ::malloc_trim(0);  // the job's memory back to the system
}

}  // namespace nhsim::server

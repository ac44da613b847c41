#include "nhsim/server/service.hpp"

#include <absl/status/status.h>
#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "nhsim/catalogue.hpp"
#include "nhsim/custom/definition.hpp"
#include "nhsim/custom/names.hpp"
#include "nhsim/server/log.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

/// Shortest decimal that reads back as `value` (e.g. 1e+11, 1000).
std::string number(double value) {
  char text[32] = "";
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

/// A client's job id or name as errors and logs show it: cut to 64 bytes (ids are 32 hex
/// digits).
std::string shown_id(const std::string& id) {
  return id.size() <= 64 ? id : id.substr(0, 64) + "...";
}

/// "<field>: N bytes, more than this server takes (M)".
std::string too_long(const char* field, const std::string& value, std::size_t limit) {
  return std::string(field) + ": " + std::to_string(value.size()) +
         " bytes, more than this server takes (" + std::to_string(limit) + ")";
}

/// Why `key` cannot be an idempotency key; empty when it can.
std::string bad_idempotency_key(const std::string& key) {
  const bool fits =
      !key.empty() && key.size() <= 128 && std::all_of(key.begin(), key.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == ':';
      });
  return fits ? "" : std::string(kIdempotencyKey) + ": 1 to 128 of A-Z a-z 0-9 - _ . :";
}

grpc::Status not_found(const std::string& id) {
  return {grpc::StatusCode::NOT_FOUND, "job_id: no job '" + shown_id(id) + "'"};
}

/// Whether `caller` may see `record`: its owner and admins may.
bool visible(const JobRecord& record, const wire::Caller& caller) {
  return caller.admin || record.owner == caller.identity;
}

/// A quarantined job as ListJobs shows it: FAILED, the error naming the damage.
v1::Job quarantined_job(const QuarantinedJob& damaged) {
  v1::Job job;
  job.set_job_id(damaged.id);
  job.set_state(v1::FAILED);
  job.set_owner(damaged.owner);
  job.set_error("quarantined: " + damaged.reason +
                " (found at the server's start; its calls answer DATA_LOSS, DeleteJob forgets it)");
  *job.mutable_finished_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(damaged.found_ms);
  return job;
}

grpc::Status reject(grpc::StatusCode code, const std::string& message, const wire::Caller& who) {
  log_job("", who.identity,
          "submit rejected (" + absl::StatusCodeToString(static_cast<absl::StatusCode>(code)) +
              "): " + message,
          LogLevel::kWarning);
  return {code, message};
}

/// The answer to a client that set custom_system.name, which only the server sets.
constexpr const char* kNameFieldIsTheServers =
    "custom_system.name: set by the server when a spec names a registered system; leave it "
    "empty";

/// Sets the request's `parameters` on the registered definition `definition` of `name`, where the
/// job's system takes them from; "" on success, else the refusal naming the field.
std::string set_registered_parameters(const google::protobuf::Map<std::string, double>& parameters,
                                      const std::string& name, v1::CustomSystem& definition) {
  for (const auto& entry : parameters) {
    const std::string& key = entry.first;
    const double value = entry.second;
    auto* defined = definition.mutable_parameters();
    const auto found = std::find_if(defined->begin(), defined->end(),
                                    [&](const v1::CustomParameter& p) { return p.name() == key; });
    if (found == defined->end()) {
      std::string known;
      for (const auto& p : *defined) known += (known.empty() ? "" : ", ") + p.name();
      return "parameters." + key + ": the registered system '" + name +
             "' has no such parameter; its parameters: " + (known.empty() ? "none" : known);
    }
    if (!std::isfinite(value)) return "parameters." + key + ": must be finite";
    found->set_value(value);
  }
  return "";
}

}  // namespace

EnsembleServiceImpl::EnsembleServiceImpl(JobManager& jobs, SystemRegistry& systems,
                                         std::shared_ptr<const wire::TokenTable> tokens,
                                         ServiceLimits limits, bool certificate_identities)
    : jobs_(jobs),
      systems_(systems),
      tokens_(std::move(tokens)),
      limits_(limits),
      certificate_identities_(certificate_identities),
      unary_reads_(4 * static_cast<std::int64_t>(limits.max_message_bytes > 0
                                                     ? limits.max_message_bytes
                                                     : std::size_t{64} << 20)),
      result_streams_({.max_open = limits.max_result_streams,
                       .max_open_per_client = limits.max_result_streams_per_client,
                       .total_flag = "--max-result-streams",
                       .per_client_flag = "--max-result-streams-per-client"},
                      limits.stream_write_deadline),
      watches_({.store = jobs.store(),
                .message = [this](const JobRecord& record) { return job_message(record); },
                .gone = [](const std::string& id) { return not_found(id); }},
               {.max_open = limits.max_watchers,
                .max_open_per_client = limits.max_watchers_per_client,
                .total_flag = "--max-watchers",
                .per_client_flag = "--max-watchers-per-client"},
               limits.stream_write_deadline) {}

void EnsembleServiceImpl::set_tokens(std::shared_ptr<const wire::TokenTable> tokens) {
  const std::lock_guard lock(tokens_mutex_);
  tokens_ = std::move(tokens);
}

std::optional<wire::Caller> EnsembleServiceImpl::caller(
    const grpc::ServerContextBase& context) const {
  const std::shared_ptr<const wire::TokenTable> tokens = [&] {
    const std::lock_guard lock(tokens_mutex_);
    return tokens_;
  }();
  if (tokens == nullptr && certificate_identities_) {
    // gRPC's peer identity of a verified client certificate: its SANs, else its common name.
    const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    const std::vector<grpc::string_ref> names =
        auth ? auth->GetPeerIdentity() : std::vector<grpc::string_ref>{};
    if (names.empty()) return std::nullopt;
    std::string identity(names.front().data(), names.front().size());
    if (!wire::valid_identity(identity)) return std::nullopt;
    return wire::Caller{std::move(identity), false};
  }
  if (tokens == nullptr) return wire::kAnonymous;
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) return std::nullopt;
  return tokens->authenticate(std::string_view(it->second.data(), it->second.size()));
}

template <typename Body>
grpc::Status EnsembleServiceImpl::authorized(const grpc::ServerContextBase* context, Body&& body) {
  try {
    const std::optional<wire::Caller> who = caller(*context);
    if (!who) {
      std::int64_t held_back = 0;
      if (unauthenticated_log_.allow(held_back)) {
        log_line("unauthenticated call from " + context->peer() + " refused" +
                     (held_back > 0 ? " (and " + std::to_string(held_back) +
                                          " more since the last such line, from any peer)"
                                    : std::string()),
                 LogLevel::kWarning);
      }
      return {grpc::StatusCode::UNAUTHENTICATED,
              "authorization: a valid bearer token is required (metadata \"authorization: "
              "Bearer <token>\"; nhsim --token-file or NHSIM_TOKEN)"};
    }
    return body(*who);
  } catch (const std::exception& e) {
    log_line(std::string("internal error: ") + e.what(), LogLevel::kError);
    return {grpc::StatusCode::INTERNAL, e.what()};
  }
}

template <typename Read>
grpc::Status EnsembleServiceImpl::read_stored(const std::string& id, Read&& read) const {
  try {
    return read();
  } catch (const JobGone& e) {
    return {grpc::StatusCode::NOT_FOUND, e.what()};
  } catch (const ResultGone& e) {  // deleted while it was read
    return {grpc::StatusCode::NOT_FOUND, e.what()};
  } catch (const DamagedRecord& e) {
    log_job(id, "", std::string("job ") + id + ": " + e.what(), LogLevel::kError);
    return {grpc::StatusCode::DATA_LOSS, e.what()};
  } catch (const std::exception& e) {  // the detail (a path, SQLite's message) stays in the log
    log_job(id, "", std::string("job ") + id + ": its result cannot be read: " + e.what(),
            LogLevel::kError);
    return {grpc::StatusCode::UNAVAILABLE, "job " + id + ": its result cannot be read now"};
  }
}

std::optional<JobRecord> EnsembleServiceImpl::visible_job(const std::string& id,
                                                          const wire::Caller& who) const {
  auto record = jobs_.store().get(id);
  if (!record || !visible(*record, who)) return std::nullopt;
  return record;
}

std::vector<std::string> job_ids_named(const std::string& given,
                                       const std::vector<std::string>& ids) {
  if (std::find(ids.begin(), ids.end(), given) != ids.end()) return {given};
  std::vector<std::string> out;
  if (given.size() < kMinJobIdPrefix) return out;
  for (const std::string& id : ids) {
    if (id.starts_with(given)) out.push_back(id);
  }
  return out;
}

grpc::Status EnsembleServiceImpl::named_job(const std::string& given, const wire::Caller& who,
                                            JobRecord& record) const {
  std::optional<JobRecord> found = jobs_.store().get(given);
  if (!found && given.size() >= kMinJobIdPrefix) {
    std::vector<std::string> visible_ids;  // the caller's jobs whose ids start with `given`
    jobs_.store().count_if([&](const JobRecord& r) {
      if (r.id.starts_with(given) && visible(r, who)) visible_ids.push_back(r.id);
      return false;
    });
    const std::vector<std::string> named = job_ids_named(given, visible_ids);
    if (named.size() > 1) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "job_id: '" + shown_id(given) + "' is the start of " + std::to_string(named.size()) +
                  " jobs' ids; give more of it"};
    }
    if (named.size() == 1) found = jobs_.store().get(named.front());
  }
  if (!found || !visible(*found, who)) return missing(given, who);
  record = std::move(*found);
  return grpc::Status::OK;
}

grpc::Status EnsembleServiceImpl::ListSystems(grpc::ServerContext* context,
                                              const v1::ListSystemsRequest* /*request*/,
                                              v1::ListSystemsResponse* response) {
  return authorized(context, [&](const wire::Caller& who) {
    for (const auto& system : list_systems()) *response->add_systems() = wire::to_proto(system);
    for (const auto& system : systems_.of(who.identity)) {
      *response->add_systems() = registered_info(system, who);
    }
    return grpc::Status::OK;
  });
}

grpc::Status EnsembleServiceImpl::RegisterSystem(grpc::ServerContext* context,
                                                 const v1::RegisterSystemRequest* request,
                                                 v1::SystemInfo* response) {
  return authorized(context, [&](const wire::Caller& who) -> grpc::Status {
    const std::string& name = request->name();
    if (const std::string why = unregistrable(name); !why.empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "name: " + why);
    }
    if (!request->custom_system().name().empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, kNameFieldIsTheServers);
    }
    if (request->description().size() > kMaxDescriptionBytes) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          too_long("description", request->description(), kMaxDescriptionBytes));
    }
    if (const std::size_t bytes = request->custom_system().ByteSizeLong();
        bytes > kMaxDefinitionBytes) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "custom_system: " + std::to_string(bytes) +
                              " bytes, more than a registered system may have (" +
                              std::to_string(kMaxDefinitionBytes) + ")");
    }
    RegisteredSystem system{name, request->custom_system(), request->description(),
                            std::chrono::duration_cast<milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count()};
    try {
      compile_custom_system(wire::from_proto(system.definition));  // every check of a submission
    } catch (const SpecError& e) {  // "custom_system.<field>: <reason>"
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
    }
    switch (systems_.add(who.identity, system)) {
      case SystemRegistry::Added::kNameTaken:
        return grpc::Status(
            grpc::StatusCode::ALREADY_EXISTS,
            "name: you have a system named '" + shown_id(name) + "'" + " (DeleteSystem it first)");
      case SystemRegistry::Added::kFull:
        return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                            "name: you have " + std::to_string(SystemRegistry::kMaxPerOwner) +
                                " registered systems, the most one identity may have");
      case SystemRegistry::Added::kAdded:
        break;
    }
    log_job("", who.identity, "registered system '" + shown_id(name) + "'");
    *response = registered_info(system, who);
    return grpc::Status::OK;
  });
}

grpc::Status EnsembleServiceImpl::DeleteSystem(grpc::ServerContext* context,
                                               const v1::DeleteSystemRequest* request,
                                               v1::DeleteSystemResponse* /*response*/) {
  return authorized(context, [&](const wire::Caller& who) {
    if (!systems_.remove(who.identity, request->name())) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "name: you have no system named '" + shown_id(request->name()) + "'");
    }
    log_job("", who.identity, "deleted system '" + shown_id(request->name()) + "'");
    return grpc::Status::OK;
  });
}

v1::SystemInfo EnsembleServiceImpl::registered_info(const RegisteredSystem& system,
                                                    const wire::Caller& who) {
  // Which integrators apply depends on the kind of definition (M(q), control forces): compiled
  // (it compiled when it was registered; one that no longer does lists no integrators).
  SystemInfo info = custom_system_info();
  try {
    info = custom_system_info(compile_custom_system(wire::from_proto(system.definition)).get());
  } catch (const SpecError&) {
    info.integrators.clear();
  }
  info.name = system.name;
  info.description = system.description;
  info.source = "registered by " + who.identity + " (custom_system)";
  for (const auto& invariant : system.definition.invariants()) {
    info.invariants.push_back(invariant.name());
  }
  // Its constants, which a sweep may set (parameters.NAME): any finite value.
  for (const auto& parameter : system.definition.parameters()) {
    info.parameters.push_back({.name = parameter.name(),
                               .default_value = parameter.value(),
                               .unit = parameter.unit(),
                               .description = "a constant of the registered definition",
                               .min_value = std::numeric_limits<double>::lowest(),
                               .max_value = std::numeric_limits<double>::max()});
  }
  return wire::to_proto(info);
}

std::string EnsembleServiceImpl::unregistrable(const std::string& name) {
  if (!is_custom_name(name)) {
    return "'" + shown_id(name) + "'" +
           " is not a name (a letter or '_', then letters, digits or '_'; at most "
           "64 characters)";
  }
  if (name == "custom_system") return "'custom_system' is the spec field's name";
  for (const auto& system : list_systems()) {
    if (system.name == name) return "'" + name + "' is a catalogue system";
  }
  return {};
}

grpc::Status EnsembleServiceImpl::ListIntegrators(grpc::ServerContext* context,
                                                  const v1::ListIntegratorsRequest* /*request*/,
                                                  v1::ListIntegratorsResponse* response) {
  return authorized(context, [&](const wire::Caller&) {
    for (const auto& integrator : list_integrators()) {
      *response->add_integrators() = wire::to_proto(integrator);
    }
    return grpc::Status::OK;
  });
}

grpc::Status EnsembleServiceImpl::SubmitEnsemble(grpc::ServerContext* context,
                                                 const v1::SubmitEnsembleRequest* request,
                                                 v1::Job* response) {
  return authorized(context, [&](const wire::Caller& who) -> grpc::Status {
    // A registered system: the job gets the stored definition as its custom_system.
    if (!request->custom_system().name().empty()) {
      return reject(grpc::StatusCode::INVALID_ARGUMENT, kNameFieldIsTheServers, who);
    }
    std::optional<v1::SubmitEnsembleRequest> resolved;
    if (!request->system().empty() && !request->has_custom_system()) {
      if (auto system = systems_.find(who.identity, request->system())) {
        resolved = *request;
        resolved->clear_system();
        resolved->clear_parameters();
        *resolved->mutable_custom_system() = std::move(system->definition);
        resolved->mutable_custom_system()->set_name(system->name);  // the job's system
        if (const std::string why = set_registered_parameters(request->parameters(), system->name,
                                                              *resolved->mutable_custom_system());
            !why.empty()) {
          return reject(grpc::StatusCode::INVALID_ARGUMENT, why, who);
        }
      }
    }
    std::string key;
    if (const auto found = context->client_metadata().find(kIdempotencyKey);
        found != context->client_metadata().end()) {
      key.assign(found->second.data(), found->second.size());
      if (const std::string why = bad_idempotency_key(key); !why.empty()) {
        return reject(grpc::StatusCode::INVALID_ARGUMENT, why, who);
      }
    }
    if (request->label().size() > kMaxLabelBytes) {
      return reject(grpc::StatusCode::INVALID_ARGUMENT,
                    too_long("label", request->label(), kMaxLabelBytes), who);
    }
    const v1::SubmitEnsembleRequest& submitted = resolved ? *resolved : *request;
    std::optional<Problem> problem;
    CostEstimate cost;
    try {
      EnsembleSpec spec = wire::from_proto(submitted);
      // The trajectory limit comes before validate(), so that an oversized request costs
      // nothing; the step limit needs the steps validated first.
      const std::int64_t trajectories = trajectory_count(spec);
      if (limits_.max_trajectories > 0 && trajectories > limits_.max_trajectories) {
        return reject(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      "initial_conditions: " + std::to_string(trajectories) +
                          " trajectories exceed this server's limit --max-trajectories=" +
                          std::to_string(limits_.max_trajectories),
                      who);
      }
      // Checks the spec, once for the whole job; a sweep stops between cases when the client
      // goes away (each case may compile a user-defined system).
      problem.emplace(std::move(spec), [context] { return context->IsCancelled(); });
      cost = estimate_cost(*problem);
    } catch (const std::invalid_argument& e) {  // SpecError: "<field>: <reason>"
      return reject(grpc::StatusCode::INVALID_ARGUMENT, e.what(), who);
    } catch (const Abandoned& e) {
      return reject(grpc::StatusCode::CANCELLED, std::string("the client went away: ") + e.what(),
                    who);
    }
    if (const std::string over = over_limits(cost); !over.empty()) {
      return reject(grpc::StatusCode::RESOURCE_EXHAUSTED, over, who);
    }
    if (const std::string why = jobs_.refuses(problem->spec()); !why.empty()) {
      return reject(grpc::StatusCode::INVALID_ARGUMENT, why, who);
    }
    try {
      *response =
          jobs_.submit(submitted, std::move(*problem), who.identity, key, job_memory_bytes(cost));
    } catch (const QueueFull& e) {
      return reject(grpc::StatusCode::RESOURCE_EXHAUSTED, e.what(), who);
    } catch (const KeyReused& e) {
      return reject(grpc::StatusCode::ALREADY_EXISTS, e.what(), who);
    } catch (const StoreUnavailable& e) {
      return reject(grpc::StatusCode::UNAVAILABLE, e.what(), who);
    }
    return grpc::Status::OK;
  });
}

std::string EnsembleServiceImpl::over_limits(const CostEstimate& cost) const {
  const double steps_limit = limits_.max_trajectory_steps;
  if (steps_limit > 0 && cost.trajectory_steps > steps_limit) {
    return "t_final: " + number(cost.trajectory_steps) +
           " trajectory-steps (trajectories x t_final / h, summed over integrators) exceed this "
           "server's limit --max-trajectory-steps=" +
           number(steps_limit);
  }
  if (steps_limit > 0 && cost.generator_draws > steps_limit) {
    return "initial_conditions.energy_shell.max_attempts: up to " + number(cost.generator_draws) +
           " generator draws (trajectories x max_attempts) exceed this server's limit "
           "--max-trajectory-steps=" +
           number(steps_limit) + " (draws count as steps)";
  }
  constexpr double kMiB = 1024.0 * 1024.0;
  const double memory_limit = limits_.max_job_memory_mb * kMiB;
  if (memory_limit > 0 && cost.statistics_bytes > memory_limit) {
    return "observables: the statistics of " + number(static_cast<double>(cost.cells)) +
           " cells (sample times x observables, summed over integrators) need about " +
           number(std::round(cost.statistics_bytes / kMiB)) +
           " MiB, more than this server's limit --max-job-memory-mb=" +
           number(limits_.max_job_memory_mb) + "; sample less often (sample_every)";
  }
  if (memory_limit > 0 && job_memory_bytes(cost) > memory_limit) {
    return "outputs: the per-trajectory outputs need about " +
           number(std::round(kOutputCopies * cost.output_bytes / kMiB)) + " MiB (" +
           number(std::round(cost.output_bytes / kMiB)) + " MiB of values, held up to " +
           number(kOutputCopies) + " times while the job runs and its result is stored) beside " +
           number(std::round(cost.statistics_bytes / kMiB)) +
           " MiB of statistics, more than this server's limit --max-job-memory-mb=" +
           number(limits_.max_job_memory_mb) + "; select fewer trajectories or sample less often";
  }
  const double result_limit = limits_.max_result_mb * kMiB;
  if (result_limit > 0 && cost.result_bytes > result_limit) {
    return "integrators: the result would have about " +
           number(std::round(cost.result_bytes / kMiB)) +
           " MiB, more than this server's limit --max-result-mb=" + number(limits_.max_result_mb) +
           (cost.output_bytes > 0 ? "; select fewer per-trajectory outputs or sample less often"
                                  : "; sample less often (sample_every)");
  }
  return {};
}

v1::Job EnsembleServiceImpl::job_message(const JobRecord& record) const {
  v1::Job job = to_job(record);
  if (record.state == v1::QUEUED) job.set_waiting_reason(jobs_.waiting_reason(record.id));
  return job;
}

grpc::Status EnsembleServiceImpl::GetJob(grpc::ServerContext* context,
                                         const v1::GetJobRequest* request, v1::Job* response) {
  return authorized(context, [&](const wire::Caller& who) {
    JobRecord record;
    if (grpc::Status status = named_job(request->job_id(), who, record); !status.ok()) {
      return status;
    }
    *response = job_message(record);
    return grpc::Status::OK;
  });
}

grpc::ServerWriteReactor<v1::Job>* EnsembleServiceImpl::WatchJob(
    grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) {
  grpc::ServerWriteReactor<v1::Job>* watch = nullptr;
  const grpc::Status status = authorized(context, [&](const wire::Caller& who) {
    JobRecord named;  // owners never change: seen once, the job stays the caller's
    if (grpc::Status found = named_job(request->job_id(), who, named); !found.ok()) return found;
    watch = watches_.watch(context, named.id, who.identity);
    return grpc::Status::OK;
  });
  return watch != nullptr ? watch : finished_watch(status);
}

grpc::Status EnsembleServiceImpl::missing(const std::string& id, const wire::Caller& who) const {
  if (const auto damaged = jobs_.quarantined(id);
      damaged && (who.admin || damaged->owner.empty() || damaged->owner == who.identity)) {
    return {grpc::StatusCode::DATA_LOSS,
            "job " + id + ": " + damaged->reason +
                " (found at the server's start; DeleteJob forgets it)"};
  }
  return not_found(id);
}

grpc::Status EnsembleServiceImpl::result_of(const std::string& given, const wire::Caller& who,
                                            JobRecord& record) const {
  if (grpc::Status status = named_job(given, who, record); !status.ok()) return status;
  const std::string prefix = "job " + record.id + " ";
  switch (record.state) {
    case v1::SUCCEEDED:
    case v1::CANCELLED:
      if (record.has_result) return grpc::Status::OK;
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          prefix + "was cancelled before it started; it has no result");
    case v1::FAILED:
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          prefix + "failed, it has no result: " + record.error);
    default:
      return grpc::Status(
          grpc::StatusCode::FAILED_PRECONDITION,
          prefix + "is " + state_name(record.state) + "; its result is available when it ends");
  }
}

grpc::Status EnsembleServiceImpl::served_result(const v1::GetResultRequest& request,
                                                const wire::Caller& who, JobRecord& record,
                                                std::shared_ptr<const std::string>& live) const {
  if (request.partial()) {
    if (grpc::Status status = named_job(request.job_id(), who, record); !status.ok()) {
      return status;
    }
    if (!is_terminal(record.state)) {
      return read_stored(record.id, [&] {
        const std::string prefix = "job " + record.id + " is " + state_name(record.state);
        try {
          live = jobs_.snapshot(record);
        } catch (const PartialMismatch& e) {  // resumed from a checkpoint with gaps
          return grpc::Status(
              grpc::StatusCode::FAILED_PRECONDITION,
              prefix + "; its checkpoint holds no first run of trajectories (" + e.what() + ")");
        }
        if (!live) {
          return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                              prefix +
                                  " and has no checkpoint yet; one comes about every "
                                  "--checkpoint-seconds of its work");
        }
        record.result_size = static_cast<std::int64_t>(live->size());
        return grpc::Status::OK;
      });
    }
  }
  return result_of(request.job_id(), who, record);
}

grpc::Status EnsembleServiceImpl::too_large_for_one_message(const JobRecord& record) const {
  return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      "job " + record.id + " result has " + std::to_string(record.result_size) +
                          " bytes, more than this server's limit --max-message-mb=" +
                          std::to_string(limits_.max_message_bytes >> 20) +
                          "; read it with StreamResult");
}

grpc::Status EnsembleServiceImpl::GetResult(grpc::ServerContext* context,
                                            const v1::GetResultRequest* request,
                                            v1::EnsembleResult* response) {
  return authorized(context, [&](const wire::Caller& who) {
    JobRecord record;
    std::shared_ptr<const std::string> live;  // a running job's statistics so far
    if (grpc::Status status = served_result(*request, who, record, live); !status.ok()) {
      return status;
    }
    if (limits_.max_message_bytes > 0 &&
        static_cast<std::size_t>(record.result_size) > limits_.max_message_bytes) {
      return too_large_for_one_message(record);
    }
    // The stored bytes and the parsed message: twice the result, while this call holds them.
    const std::int64_t held = 2 * record.result_size;
    const ReadBudget::Lease lease = unary_reads_.take(held, Steady::now() + seconds(30));
    if (!lease) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "job " + record.id + ": other calls are reading " +
                              std::to_string(unary_reads_.capacity() >> 20) +
                              " MiB of results; try again, or read it with StreamResult");
    }
    return read_stored(record.id, [&] {
      const std::shared_ptr<const std::string> bytes = live ? live : jobs_.read_result(record);
      if (!response->ParseFromString(*bytes)) {
        throw DamagedRecord("the result of job " + record.id + " does not parse");
      }
      return grpc::Status::OK;
    });
  });
}

grpc::Status EnsembleServiceImpl::StreamResult(grpc::ServerContext* context,
                                               const v1::GetResultRequest* request,
                                               grpc::ServerWriter<v1::ResultChunk>* writer) {
  return authorized(context, [&](const wire::Caller& who) {
    JobRecord record;
    std::shared_ptr<const std::string> live;  // a running job's statistics so far
    if (grpc::Status status = served_result(*request, who, record, live); !status.ok()) {
      return status;
    }
    std::string refusal;
    const std::unique_ptr<ResultStreams::Stream> stream = result_streams_.open(
        who.identity, [context] { context->TryCancel(); }, refusal);
    if (!stream)
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "StreamResult: " + refusal);
    return read_stored(record.id, [&] {
      constexpr std::size_t kChunk = std::size_t{1} << 19;  // fits the smallest message limit
      grpc::Status status = grpc::Status::OK;
      v1::ResultChunk chunk;
      const auto write = [&](std::string_view piece, std::int64_t total) {
        if (context->IsCancelled()) {
          status = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
          return false;
        }
        chunk.set_total_bytes(total);
        chunk.set_data(std::string(piece));
        stream->begin_write();
        const bool written = writer->Write(chunk);
        stream->end_write();
        if (!written) {
          status = stream->cut() ? grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                                                "a piece waited more than " +
                                                    seconds_text(result_streams_.write_deadline()) +
                                                    " for the client to read")
                                 : grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
          return false;
        }
        return true;
      };
      if (live) {
        for_each_piece(*live, kChunk, write);
      } else {
        jobs_.read_result_pieces(record, kChunk, write);
      }
      return status;
    });
  });
}

grpc::Status EnsembleServiceImpl::CancelJob(grpc::ServerContext* context,
                                            const v1::CancelJobRequest* request,
                                            v1::Job* response) {
  return authorized(context, [&](const wire::Caller& who) {
    JobRecord named;
    if (grpc::Status status = named_job(request->job_id(), who, named); !status.ok()) {
      return status;
    }
    const auto job = jobs_.cancel(named.id, who.identity);
    if (!job) return not_found(named.id);
    *response = *job;
    return grpc::Status::OK;
  });
}

grpc::Status EnsembleServiceImpl::ListJobs(grpc::ServerContext* context,
                                           const v1::ListJobsRequest* request,
                                           v1::ListJobsResponse* response) {
  return authorized(context, [&](const wire::Caller& who) {
    constexpr int kDefaultPage = 100, kMaxPage = 1000;
    const int page = request->page_size() == 0 ? kDefaultPage : request->page_size();
    if (page < 1 || page > kMaxPage) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "page_size: must be in [1, " + std::to_string(kMaxPage) + "]");
    }
    // The jobs, then the quarantined ones (never silently missing: FAILED, the error naming the
    // damage). The page token is the id of the last job of the previous page.
    std::vector<JobRecord> jobs = jobs_.store().list();
    std::erase_if(jobs, [&](const JobRecord& r) { return !visible(r, who); });
    std::vector<QuarantinedJob> damaged = jobs_.quarantined_jobs();
    std::erase_if(damaged, [&](const QuarantinedJob& j) {
      return !who.admin && (j.owner.empty() || j.owner != who.identity);
    });
    const std::size_t total = jobs.size() + damaged.size();
    auto id_at = [&](std::size_t k) -> const std::string& {
      return k < jobs.size() ? jobs[k].id : damaged[k - jobs.size()].id;
    };
    std::size_t k = 0;
    if (!request->page_token().empty()) {
      while (k < total && id_at(k) != request->page_token()) ++k;
      if (k == total) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "page_token: not a job of this server (evicted or deleted?)");
      }
      ++k;
    }
    // A page ends at page_size jobs or before kMaxPageBytes, whichever comes first (at least
    // one job): labels are free text, so a page of many jobs could outgrow a message.
    std::size_t bytes = 0;
    for (; k < total && response->jobs_size() < page; ++k) {
      v1::Job job =
          k < jobs.size() ? job_message(jobs[k]) : quarantined_job(damaged[k - jobs.size()]);
      bytes += job.ByteSizeLong() + 8;  // + the field's tag and length
      if (response->jobs_size() > 0 && bytes > kMaxPageBytes) break;
      *response->add_jobs() = std::move(job);
    }
    if (k < total) response->set_next_page_token(response->jobs().rbegin()->job_id());
    return grpc::Status::OK;
  });
}

grpc::Status EnsembleServiceImpl::DeleteJob(grpc::ServerContext* context,
                                            const v1::DeleteJobRequest* request,
                                            v1::DeleteJobResponse* /*response*/) {
  return authorized(context, [&](const wire::Caller& who) {
    if (!visible_job(request->job_id(), who) &&
        missing(request->job_id(), who).error_code() != grpc::StatusCode::DATA_LOSS) {
      return not_found(request->job_id());  // a quarantined job of the caller's is forgotten
    }
    switch (jobs_.remove(request->job_id(), /*while_read=*/true)) {
      case Removal::kRemoved:
        log_job(request->job_id(), who.identity, "job " + request->job_id() + " deleted");
        return grpc::Status::OK;
      case Removal::kNotFinished:
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "job " + request->job_id() + " has not ended; cancel it first");
      case Removal::kBeingRead:
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "job " + request->job_id() + ": its result is being read; try again");
      case Removal::kNotFound:
        break;
    }
    return not_found(request->job_id());
  });
}

}  // namespace nhsim::server

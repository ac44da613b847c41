// nhsim.v1.EnsembleService over the core and the job manager (synchronous gRPC API).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/server/job_manager.hpp"
#include "nhsim/server/log.hpp"
#include "nhsim/server/read_budget.hpp"
#include "nhsim/server/result_streams.hpp"
#include "nhsim/server/system_registry.hpp"
#include "nhsim/server/watch_hub.hpp"
#include "nhsim/v1/ensemble.grpc.pb.h"
#include "nhsim/wire/auth.hpp"

namespace nhsim::server {

/// Limits a submitted spec must respect (RESOURCE_EXHAUSTED otherwise, naming the limit).
/// Sizes of free text and registrations, so that no field lets one client grow the server's
/// memory and store without bound.
inline constexpr std::size_t kMaxLabelBytes = 1024;            ///< SubmitEnsembleRequest.label
inline constexpr std::size_t kMaxDescriptionBytes = 4096;      ///< RegisterSystemRequest
inline constexpr std::size_t kMaxDefinitionBytes = 64 * 1024;  ///< a registered CustomSystem
/// The gRPC metadata key of SubmitEnsemble's idempotency key (client-chosen): a retried submit
/// with the same key returns the job the first one created (JobManager::submit).
inline constexpr const char* kIdempotencyKey = "idempotency-key";
/// ListJobs pages end before this many bytes of jobs (and at page_size jobs).
inline constexpr std::size_t kMaxPageBytes = 1 << 20;

struct ServiceLimits {
  /// Most initial conditions in one job (--max-trajectories); 0 = no limit.
  std::int64_t max_trajectories = 1'000'000;
  /// Most trajectory-steps in one job: initial conditions x sum over choices of t_final / h
  /// (--max-trajectory-steps); 0 = no limit.
  double max_trajectory_steps = 1e11;
  /// Largest response (a result) in bytes (--max-message-mb); 0 = no limit.
  std::size_t max_message_bytes = 0;
  /// Most memory for one job's statistics, MiB (--max-job-memory-mb); 0 = no limit.
  double max_job_memory_mb = 2048;
  /// Largest result, MiB (--max-result-mb; read with StreamResult); 0 = no limit.
  double max_result_mb = 1024;
  /// StreamResult calls open at once, in all and per identity (--max-result-streams,
  /// --max-result-streams-per-client); 0 = no limit. Each holds a gRPC thread.
  int max_result_streams = 64;
  int max_result_streams_per_client = 16;
  /// WatchJob calls open at once, in all and per identity (--max-watchers,
  /// --max-watchers-per-client); 0 = no limit. They share one thread (WatchHub).
  int max_watchers = 4096;
  int max_watchers_per_client = 1024;
  /// How long one message of a StreamResult or WatchJob may wait for its client to read before
  /// the call is cut off (--stream-write-deadline-seconds; > 0).
  std::chrono::milliseconds stream_write_deadline{std::chrono::seconds(60)};
};

/// The shortest start of a job id that names the job (EnsembleServiceImpl::named_job).
inline constexpr std::size_t kMinJobIdPrefix = 6;

/// The ids among `ids` that `given` names: `given` alone where it is one of them, else those that
/// start with it, if it has at least kMinJobIdPrefix characters (else none).
std::vector<std::string> job_ids_named(const std::string& given,
                                       const std::vector<std::string>& ids);

/// The service. Status codes: see proto/nhsim/v1/ensemble.proto; every method answers
/// UNAUTHENTICATED without a valid token when the server has a token table, and NOT_FOUND for
/// a job of another identity (unless the caller is admin). Synchronous, but for WatchJob: its
/// calls are callback reactors of one WatchHub, so that open watches hold no thread each.
class EnsembleServiceImpl final : public nhsim::v1::EnsembleService::WithCallbackMethod_WatchJob<
                                      nhsim::v1::EnsembleService::Service> {
 public:
  /// `jobs`, `systems` and `tokens` must outlive the service. `tokens` null: with
  /// `certificate_identities` (mutual TLS, --tls-client-ca) a caller is the identity its client
  /// certificate names (its subject alternative name, else its common name; not admin), and a
  /// certificate whose name is no valid identity is UNAUTHENTICATED; without, every caller is
  /// wire::kAnonymous.
  EnsembleServiceImpl(JobManager& jobs, SystemRegistry& systems,
                      std::shared_ptr<const wire::TokenTable> tokens, ServiceLimits limits,
                      bool certificate_identities = false);

  /// StreamResult and WatchJob calls open now (for the metrics).
  int open_result_streams() const { return result_streams_.open_streams(); }
  int open_watches() const { return watches_.open_watches(); }

  /// Replaces the token table (a reloaded tokens file); calls already authenticated carry on.
  /// Precondition: the service was built with a token table.
  void set_tokens(std::shared_ptr<const wire::TokenTable> tokens);

  grpc::Status ListSystems(grpc::ServerContext* context,
                           const nhsim::v1::ListSystemsRequest* request,
                           nhsim::v1::ListSystemsResponse* response) override;
  grpc::Status RegisterSystem(grpc::ServerContext* context,
                              const nhsim::v1::RegisterSystemRequest* request,
                              nhsim::v1::SystemInfo* response) override;
  grpc::Status DeleteSystem(grpc::ServerContext* context,
                            const nhsim::v1::DeleteSystemRequest* request,
                            nhsim::v1::DeleteSystemResponse* response) override;
  grpc::Status ListIntegrators(grpc::ServerContext* context,
                               const nhsim::v1::ListIntegratorsRequest* request,
                               nhsim::v1::ListIntegratorsResponse* response) override;
  grpc::Status SubmitEnsemble(grpc::ServerContext* context,
                              const nhsim::v1::SubmitEnsembleRequest* request,
                              nhsim::v1::Job* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const nhsim::v1::GetJobRequest* request,
                      nhsim::v1::Job* response) override;
  grpc::ServerWriteReactor<nhsim::v1::Job>* WatchJob(
      grpc::CallbackServerContext* context, const nhsim::v1::WatchJobRequest* request) override;
  grpc::Status GetResult(grpc::ServerContext* context, const nhsim::v1::GetResultRequest* request,
                         nhsim::v1::EnsembleResult* response) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const nhsim::v1::CancelJobRequest* request,
                         nhsim::v1::Job* response) override;
  grpc::Status StreamResult(grpc::ServerContext* context,
                            const nhsim::v1::GetResultRequest* request,
                            grpc::ServerWriter<nhsim::v1::ResultChunk>* writer) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const nhsim::v1::ListJobsRequest* request,
                        nhsim::v1::ListJobsResponse* response) override;
  grpc::Status DeleteJob(grpc::ServerContext* context, const nhsim::v1::DeleteJobRequest* request,
                         nhsim::v1::DeleteJobResponse* response) override;

 private:
  /// The caller of the call; std::nullopt without a valid token.
  std::optional<wire::Caller> caller(const grpc::ServerContextBase& context) const;
  /// Runs `body(caller)` for an authenticated caller, else answers UNAUTHENTICATED; an
  /// unexpected exception answers INTERNAL instead of escaping into gRPC.
  template <typename Body>
  grpc::Status authorized(const grpc::ServerContextBase* context, Body&& body);
  /// ListSystems' entry of a registered system.
  static nhsim::v1::SystemInfo registered_info(const RegisteredSystem& system,
                                               const wire::Caller& who);
  /// Why `name` cannot be registered (not an identifier, a catalogue name); empty when it can.
  static std::string unregistrable(const std::string& name);
  /// The Job message of `record`, with its waiting_reason while it is queued.
  nhsim::v1::Job job_message(const JobRecord& record) const;
  /// The job, if `who` may see it.
  std::optional<JobRecord> visible_job(const std::string& id, const wire::Caller& who) const;
  /// The job `given` names for `who`, into `record`: the job with that id, else the one job
  /// `who` may see whose id starts with `given` (at least kMinJobIdPrefix characters: the 8 that
  /// progress lines show). INVALID_ARGUMENT where several such jobs exist, naming how many;
  /// otherwise what missing() answers.
  grpc::Status named_job(const std::string& given, const wire::Caller& who,
                         JobRecord& record) const;
  /// The job, when it has a result; else the status GetResult answers.
  grpc::Status result_of(const std::string& job_id, const wire::Caller& who,
                         JobRecord& record) const;
  /// The job and what GetResult and StreamResult serve of it: with request.partial, for a job
  /// that has not ended, its statistics so far into `live` (record.result_size their size);
  /// else as result_of().
  grpc::Status served_result(const nhsim::v1::GetResultRequest& request, const wire::Caller& who,
                             JobRecord& record, std::shared_ptr<const std::string>& live) const;
  /// GetResult's RESOURCE_EXHAUSTED for a result larger than one message.
  grpc::Status too_large_for_one_message(const JobRecord& record) const;
  /// NOT_FOUND for a job `who` cannot see; DATA_LOSS for a quarantined one that is theirs.
  grpc::Status missing(const std::string& id, const wire::Caller& who) const;
  /// Runs `read` (returns a status), answering DATA_LOSS when it finds stored data damaged and
  /// UNAVAILABLE when the store cannot be read.
  template <typename Read>
  grpc::Status read_stored(const std::string& id, Read&& read) const;

  JobManager& jobs_;
  SystemRegistry& systems_;
  mutable std::mutex tokens_mutex_;
  std::shared_ptr<const wire::TokenTable> tokens_;  // guarded by tokens_mutex_

  /// Why a job of this cost is refused (RESOURCE_EXHAUSTED: "<field>: <estimate> exceed
  /// <limit>"); empty when it fits every limit.
  std::string over_limits(const nhsim::CostEstimate& cost) const;

  ServiceLimits limits_;
  bool certificate_identities_;
  /// What GetResult calls hold at once: each holds its result twice (the stored bytes and the
  /// message), at most 4 x --max-message-mb in all (StreamResult holds a piece at a time).
  ReadBudget unary_reads_;
  /// Open StreamResult calls, capped and cut off when their client stops reading.
  ResultStreams result_streams_;
  /// Unauthenticated calls are logged at most once every 10 s, with the count held back.
  LogThrottle unauthenticated_log_{std::chrono::seconds(10)};
  /// Open WatchJob calls (declared last: destroyed first, its notifier reads the members above).
  WatchHub watches_;
};

}  // namespace nhsim::server

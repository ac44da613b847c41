#include "nhsim/server/server.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <malloc.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "nhsim/server/bind_check.hpp"
#include "nhsim/server/job_manager.hpp"
#include "nhsim/server/log.hpp"
#include "nhsim/server/metrics.hpp"
#include "nhsim/server/rpc_metrics.hpp"
#include "nhsim/server/service.hpp"
#include "nhsim/server/system_registry.hpp"
#include "nhsim/wire/auth.hpp"

namespace nhsim::server {
namespace {

/// The service name health checks ask about, besides "" (the server as a whole).
constexpr const char* kServiceName = "nhsim.v1.EnsembleService";
/// How often the TLS certificate files are read again.
constexpr unsigned kCertificateRefreshSeconds = 1;

std::string read_file(const std::filesystem::path& path, const char* option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(std::string(option) + " " + path.string() + ": " +
                             std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// TLS (optionally mutual) from the PEM files of `options`, or plaintext.
std::shared_ptr<grpc::ServerCredentials> credentials(const ServerOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    throw std::invalid_argument("--tls-cert and --tls-key: give both or neither");
  }
  if (options.tls_cert.empty()) {
    if (!options.tls_client_ca.empty()) {
      throw std::invalid_argument("--tls-client-ca needs --tls-cert and --tls-key");
    }
    return grpc::InsecureServerCredentials();
  }
  // Read once here for a clear error at start; then gRPC's file watcher reads them again every
  // kCertificateRefreshSeconds, so renewed certificates take effect without a restart, for new
  // connections (existing ones keep theirs), and a half-written pair is ignored until it matches.
  (void)read_file(options.tls_key, "--tls-key");
  (void)read_file(options.tls_cert, "--tls-cert");
  if (!options.tls_client_ca.empty()) (void)read_file(options.tls_client_ca, "--tls-client-ca");
  using grpc::experimental::FileWatcherCertificateProvider;
  const auto files =
      options.tls_client_ca.empty()
          ? std::make_shared<FileWatcherCertificateProvider>(
                options.tls_key.string(), options.tls_cert.string(), kCertificateRefreshSeconds)
          : std::make_shared<FileWatcherCertificateProvider>(
                options.tls_key.string(), options.tls_cert.string(), options.tls_client_ca.string(),
                kCertificateRefreshSeconds);
  grpc::experimental::TlsServerCredentialsOptions tls(files);
  tls.watch_identity_key_cert_pairs();
  if (!options.tls_client_ca.empty()) {
    tls.watch_root_certs();
    tls.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(tls);
}

}  // namespace

Server::Server(const ServerOptions& options) {
  if (options.threads < 0) throw std::invalid_argument("threads must be >= 0");
  if (options.max_running_jobs < 1) throw std::invalid_argument("max_running_jobs must be >= 1");
  if (!(options.short_job_steps >= 0)) {
    throw std::invalid_argument("short_job_steps must be >= 0");
  }
  if (options.max_running_per_client < 0) {
    throw std::invalid_argument("max_running_per_client must be >= 0");
  }
  if (options.max_queued_jobs < 1) throw std::invalid_argument("max_queued_jobs must be >= 1");
  if (options.keep_finished_for.count() < 1) {
    throw std::invalid_argument("keep_finished_for must be >= 1 s");
  }
  if (!(options.checkpoint_seconds > 0)) {
    throw std::invalid_argument("checkpoint_seconds must be > 0");
  }
  if (options.max_trajectories < 0) throw std::invalid_argument("max_trajectories must be >= 0");
  if (!(options.max_trajectory_steps >= 0)) {
    throw std::invalid_argument("max_trajectory_steps must be >= 0");
  }
  if (options.max_message_mb < 1 || options.max_message_mb > 2047) {
    throw std::invalid_argument("max_message_mb must be in 1..2047");
  }
  if (options.keep_finished_jobs_per_client < 0 || options.keep_finished_jobs < 0 ||
      !(options.keep_finished_mb_per_client >= 0) || !(options.keep_finished_mb >= 0)) {
    throw std::invalid_argument("the keep_finished limits must be >= 0");
  }
  if (options.max_result_streams < 0 || options.max_result_streams_per_client < 0 ||
      options.max_watchers < 0 || options.max_watchers_per_client < 0) {
    throw std::invalid_argument("the stream caps must be >= 0");
  }
  if (!(options.stream_write_deadline_seconds >= 0.001)) {
    throw std::invalid_argument("stream_write_deadline_seconds must be >= 0.001");
  }
  if (options.max_jobs_per_client < 1) {
    throw std::invalid_argument("max_jobs_per_client must be >= 1");
  }
  const int max_message_bytes = options.max_message_mb << 20;
  if (!options.tokens_file.empty()) {
    tokens_ = std::make_shared<const wire::TokenTable>(wire::TokenTable::load(options.tokens_file));
    tokens_file_ = options.tokens_file;
  } else if (!wire::is_loopback(options.listen) && !options.insecure &&
             options.tls_client_ca.empty()) {
    throw std::invalid_argument(
        "--listen " + options.listen +
        " is reachable from other machines: give --tokens-file (and --tls-cert, --tls-key), "
        "--tls-client-ca (mutual TLS: the client certificate names the caller), or --insecure "
        "to serve every client without authentication");
  }
  const std::shared_ptr<grpc::ServerCredentials> server_credentials = credentials(options);

  // A busy port is refused at once, naming the address and the reason.
  for (const auto& [address, option] :
       {std::pair{options.listen, "--listen"}, std::pair{options.health_listen, "--health-listen"},
        std::pair{options.metrics, "--metrics"}}) {
    if (const std::string problem = address.empty() ? "" : bind_problem(address);
        !problem.empty()) {
      throw std::runtime_error(address + ": " + problem + " (" + option + ")");
    }
  }
  metrics_ = std::make_unique<Metrics>(options.metrics);
  std::unique_ptr<Executor> executor;
  if (options.executor == "local") {
    executor =
        make_local_executor(options.threads, options.checkpoint_seconds, options.max_running_jobs);
  } else if (options.executor == "slurm") {
    executor = make_slurm_executor(options.slurm, options.threads);
  } else {
    throw std::invalid_argument("--executor: \"" + options.executor +
                                "\" is not one of local, slurm");
  }
  std::unique_ptr<DurableStore> durable;
  if (!options.data_dir.empty()) {
    durable = std::make_unique<DurableStore>(
        options.data_dir, DurableStoreOptions{.accept_new_store = options.accept_new_store});
  }
  jobs_ = std::make_unique<JobManager>(
      std::move(executor), *metrics_, std::move(durable),
      JobManagerOptions{.max_running_jobs = options.max_running_jobs,
                        .max_running_per_client = options.max_running_per_client,
                        .short_job_steps = options.short_job_steps,
                        .max_queued_jobs = options.max_queued_jobs,
                        .max_jobs_per_client = options.max_jobs_per_client,
                        .keep_finished_for = options.keep_finished_for,
                        .keep_finished_jobs_per_client = options.keep_finished_jobs_per_client,
                        .keep_finished_jobs = options.keep_finished_jobs,
                        .keep_finished_mb_per_client = options.keep_finished_mb_per_client,
                        .keep_finished_mb = options.keep_finished_mb});
  systems_ = std::make_unique<SystemRegistry>(jobs_->durable());
  service_ = std::make_unique<EnsembleServiceImpl>(
      *jobs_, *systems_, tokens_,
      ServiceLimits{.max_trajectories = options.max_trajectories,
                    .max_trajectory_steps = options.max_trajectory_steps,
                    .max_message_bytes = static_cast<std::size_t>(max_message_bytes),
                    .max_job_memory_mb = options.max_job_memory_mb,
                    .max_result_mb = options.max_result_mb,
                    .max_result_streams = options.max_result_streams,
                    .max_result_streams_per_client = options.max_result_streams_per_client,
                    .max_watchers = options.max_watchers,
                    .max_watchers_per_client = options.max_watchers_per_client,
                    .stream_write_deadline = std::chrono::milliseconds(static_cast<std::int64_t>(
                        std::llround(options.stream_write_deadline_seconds * 1000)))},
      /*certificate_identities=*/!options.tls_client_ca.empty());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC enables SO_REUSEPORT by default on Linux, which would let a second nhsimd share the
  // port silently; a taken port must be an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(options.listen, server_credentials, &port_);
  builder.RegisterService(service_.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<RpcMetricsInterceptorFactory>(*metrics_));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.SetMaxReceiveMessageSize(max_message_bytes);
  builder.SetMaxSendMessageSize(max_message_bytes);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    server_.reset();
    jobs_->stop();
    throw std::runtime_error("cannot listen on " + options.listen);
  }
  if (!options.health_listen.empty()) {
    grpc::ServerBuilder health_builder;  // the default health service, nothing else
    health_builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    health_builder.AddListeningPort(options.health_listen, grpc::InsecureServerCredentials(),
                                    &health_port_);
    health_server_ = health_builder.BuildAndStart();
    if (!health_server_ || health_port_ == 0) {
      server_->Shutdown();
      jobs_->stop();
      throw std::runtime_error("cannot listen on " + options.health_listen + " (--health-listen)");
    }
  }
  if (!tokens_ && options.tls_client_ca.empty() && !wire::is_loopback(options.listen)) {
    log_line("--insecure: serving " + options.listen +
                 " without authentication; any client can read and cancel every job",
             LogLevel::kWarning);
  } else if (tokens_ && options.tls_cert.empty() && !wire::is_loopback(options.listen)) {
    log_line("tokens travel in plaintext on " + options.listen +
                 "; give --tls-cert and --tls-key unless a TLS proxy terminates the connections",
             LogLevel::kWarning);
  }
  const std::string problem = jobs_->problem();
  if (!problem.empty()) log_line("health: NOT_SERVING: " + problem, LogLevel::kWarning);
  set_serving(problem.empty());
  health_ = std::thread([this, problem] { watch_health(problem); });
}

Server::~Server() { shutdown(); }

int Server::metrics_port() const { return metrics_->port(); }

std::string Server::reload_tokens() {
  if (tokens_file_.empty()) {
    throw std::logic_error("no --tokens-file to reload: started without authentication");
  }
  auto tokens = std::make_shared<const wire::TokenTable>(wire::TokenTable::load(tokens_file_));
  const std::size_t n = tokens->size();
  service_->set_tokens(std::move(tokens));
  return "--tokens-file " + tokens_file_.string() + " reloaded: " + std::to_string(n) + " tokens";
}

void Server::set_serving(bool serving) {
  // kServiceName follows whether jobs can make progress (readiness); "" says only that the
  // process serves (liveness): a full disk must not make a kubelet restart it in a loop.
  for (grpc::Server* server : {server_.get(), health_server_.get()}) {
    if (server == nullptr) continue;
    auto* health = server->GetHealthCheckService();
    health->SetServingStatus("", !draining_);
    health->SetServingStatus(kServiceName, serving);
  }
  metrics_->set_serving(serving);
}

void Server::watch_health(std::string last_problem) {
  std::unique_lock lock(health_mutex_);
  for (int second = 1;
       !health_changed_.wait_for(lock, std::chrono::seconds(1), [&] { return draining_; });
       ++second) {
    lock.unlock();
    // The memory gRPC's threads free after sending large answers stays in their malloc arenas
    // until trimmed (measured: 235-424 MiB after 16 concurrent GetResult calls).
    if (second % 10 == 0) ::malloc_trim(0);
    const std::string problem = jobs_->problem();
    metrics_->set_oldest_queued_age(jobs_->oldest_queued_seconds());
    metrics_->set_open_streams(service_->open_result_streams(), service_->open_watches());
    lock.lock();
    if (draining_) break;
    set_serving(problem.empty());
    if (problem != last_problem) {
      log_line(problem.empty() ? std::string("health: SERVING again")
                               : "health: NOT_SERVING: " + problem,
               problem.empty() ? LogLevel::kInfo : LogLevel::kWarning);
    }
    last_problem = problem;
  }
}

void Server::shutdown() {
  std::call_once(shut_down_, [this] {
    {
      const std::lock_guard lock(health_mutex_);
      draining_ = true;
      set_serving(false);
    }
    health_changed_.notify_all();
    health_.join();
    server_->GetHealthCheckService()->Shutdown();
    if (health_server_) health_server_->GetHealthCheckService()->Shutdown();
    jobs_->stop();  // cancels jobs and wakes watchers, whose streams then end
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    if (health_server_) {
      health_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
      health_server_->Wait();
    }
  });
}

}  // namespace nhsim::server

#include "nhsim/server/server.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <chrono>
#include <stdexcept>

#include "nhsim/server/job_manager.hpp"
#include "nhsim/server/metrics.hpp"
#include "nhsim/server/service.hpp"

namespace nhsim::server {

Server::Server(const ServerOptions& options) {
  if (options.threads < 0) throw std::invalid_argument("threads must be >= 0");
  if (options.max_running_jobs < 1) throw std::invalid_argument("max_running_jobs must be >= 1");
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
  const int max_message_bytes = options.max_message_mb << 20;

  metrics_ = std::make_unique<Metrics>(options.metrics);
  std::unique_ptr<Executor> executor;
  if (options.executor == "local") {
    executor = make_local_executor(options.threads, options.checkpoint_seconds);
  } else if (options.executor == "slurm") {
    executor = make_slurm_executor(options.slurm, options.threads);
  } else {
    throw std::invalid_argument("--executor: \"" + options.executor +
                                "\" is not one of local, slurm");
  }
  std::unique_ptr<DurableStore> durable;
  if (!options.data_dir.empty()) durable = std::make_unique<DurableStore>(options.data_dir);
  jobs_ = std::make_unique<JobManager>(
      std::move(executor), *metrics_, std::move(durable),
      JobManagerOptions{.max_running_jobs = options.max_running_jobs,
                        .max_queued_jobs = options.max_queued_jobs,
                        .keep_finished_for = options.keep_finished_for});
  service_ = std::make_unique<EnsembleServiceImpl>(
      *jobs_, ServiceLimits{.max_trajectories = options.max_trajectories,
                            .max_trajectory_steps = options.max_trajectory_steps,
                            .max_message_bytes = static_cast<std::size_t>(max_message_bytes),
                            .max_job_memory_mb = options.max_job_memory_mb,
                            .max_result_mb = options.max_result_mb});

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC enables SO_REUSEPORT by default on Linux, which would let a second nhsimd share the
  // port silently; a taken port must be an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(max_message_bytes);
  builder.SetMaxSendMessageSize(max_message_bytes);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    server_.reset();
    jobs_->stop();
    throw std::runtime_error("cannot listen on " + options.listen);
  }
}

Server::~Server() { shutdown(); }

int Server::metrics_port() const { return metrics_->port(); }

void Server::shutdown() {
  std::call_once(shut_down_, [this] {
    if (auto* health = server_->GetHealthCheckService()) health->Shutdown();
    jobs_->stop();  // cancels jobs and wakes watchers, whose streams then end
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
  });
}

}  // namespace nhsim::server

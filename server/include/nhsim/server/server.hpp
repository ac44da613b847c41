// nhsimd in a box: the gRPC server (EnsembleService, health checking, reflection), the job
// manager and the metrics endpoint, started and stopped together. Used by nhsimd's main() and
// by the tests, which start it in-process on ephemeral ports.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "nhsim/server/slurm_executor.hpp"

namespace grpc {
class Server;
}  // namespace grpc

namespace nhsim::wire {
class TokenTable;
}  // namespace nhsim::wire

namespace nhsim::server {

class EnsembleServiceImpl;
class JobManager;
class Metrics;
class SystemRegistry;

/// nhsimd's settings; the defaults are nhsimd's defaults.
struct ServerOptions {
  /// gRPC address "host:port"; port 0 picks a free port (see Server::port()).
  std::string listen = "127.0.0.1:50051";
  /// A plaintext address that serves gRPC health checking only (no jobs, no authentication),
  /// for probes that cannot speak TLS (the kubelet's); empty: none.
  std::string health_listen;
  /// Prometheus metrics address "host:port" (GET /metrics); port 0 picks a free port; empty
  /// serves no metrics.
  std::string metrics = "127.0.0.1:9464";
  int threads = 0;           ///< oneTBB threads per job; 0 = all cores
  int max_running_jobs = 4;  ///< jobs running at once, sharing the threads
  /// Jobs of one identity running at once; 0: max_running_jobs - 1 (at least 1).
  int max_running_per_client = 0;
  /// Jobs of at most this many estimated trajectory-steps may run beyond their identity's cap
  /// on a free runner, one per identity (JobManagerOptions::short_job_steps); 0: none.
  double short_job_steps = 1e7;
  int max_queued_jobs = 256;     ///< jobs waiting to run
  int max_jobs_per_client = 64;  ///< unfinished (queued + running) jobs of one identity
  /// How long finished jobs (and results) are kept before they are evicted.
  std::chrono::seconds keep_finished_for{std::chrono::hours(24 * 7)};
  /// Finished jobs kept (per identity, in all) and their results' MiB; 0 = no limit. Beyond
  /// them the oldest finished jobs are evicted (JobManagerOptions).
  std::int64_t keep_finished_jobs_per_client = 1000;
  std::int64_t keep_finished_jobs = 10000;
  double keep_finished_mb_per_client = 4096;
  double keep_finished_mb = 16384;
  std::int64_t max_trajectories = 1'000'000;  ///< initial conditions per job; 0 = no limit
  /// Trajectory-steps per job (trajectories x sum over integrators of t_final / h); 0 = none.
  double max_trajectory_steps = 1e11;
  int max_message_mb = 64;  ///< largest gRPC message received or sent, MiB (1..2047)
  /// Most memory for one job's statistics (nhsim::CostEstimate), MiB; 0 = no limit.
  double max_job_memory_mb = 2048;
  /// Largest result (nhsim::CostEstimate), MiB; 0 = no limit. Read with StreamResult.
  double max_result_mb = 1024;
  /// Open StreamResult and WatchJob calls, in all and per identity; 0 = no limit
  /// (ServiceLimits).
  int max_result_streams = 64;
  int max_result_streams_per_client = 16;
  int max_watchers = 4096;
  int max_watchers_per_client = 1024;
  /// How long one message of a StreamResult or WatchJob may wait for its client to read, s.
  double stream_write_deadline_seconds = 60;
  /// Directory of the durable job store (created if missing); empty: jobs in memory only,
  /// lost when the server stops.
  std::filesystem::path data_dir;
  /// Take an empty or different database in a data directory that held another store (its
  /// store-id), instead of refusing to start: the jobs of that store are given up.
  bool accept_new_store = false;
  /// Work per checkpoint of the local executor, seconds.
  double checkpoint_seconds = 5.0;
  /// Tokens file (wire::TokenTable): every EnsembleService call needs a bearer token from it.
  /// Empty: no authentication, every caller is wire::kAnonymous; allowed on loopback addresses
  /// only, unless `insecure`.
  std::filesystem::path tokens_file;
  /// Serve `listen` without authentication although it is not a loopback address.
  bool insecure = false;
  /// TLS: PEM certificate chain and private key of the server (both or neither).
  std::filesystem::path tls_cert, tls_key;
  /// PEM CA certificates for mutual TLS: clients must present a certificate they signed.
  std::filesystem::path tls_client_ca;
  std::string executor = "local";  ///< "local" or "slurm"
  SlurmOptions slurm;              ///< used with executor "slurm"
};

/// A running nhsimd. Thread-safe.
class Server {
 public:
  /// Binds both addresses and starts serving. Throws std::invalid_argument for bad options (a
  /// non-loopback `listen` without `tokens_file` or `insecure` among them) and
  /// std::runtime_error when a file cannot be read or an address cannot be bound.
  explicit Server(const ServerOptions& options);
  /// shutdown()s.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The bound gRPC port (the chosen one when the listen port was 0).
  int port() const { return port_; }
  /// The bound metrics port; 0 when no metrics are served.
  int metrics_port() const;
  /// The bound health-only port; 0 when there is none.
  int health_port() const { return health_port_; }

  /// Reads the tokens file again (SIGHUP): calls from then on are checked against the new tokens;
  /// jobs, connections and calls in flight carry on. Returns what happened, for the log; throws
  /// std::runtime_error (the old tokens stay) for a file that cannot be read or is malformed, and
  /// std::logic_error when the server was started without a tokens file.
  std::string reload_tokens();

  /// Until then, health checks ("" and nhsim.v1.EnsembleService) answer SERVING while the job
  /// manager reports no problem (JobManager::problem(), checked every second).
  ///
  /// Reports NOT_SERVING to health checks, stops the job manager (JobManager::stop(): with a
  /// durable store running jobs are halted at their last checkpoint and resume at the next
  /// start; in memory they are cancelled), ends open WatchJob streams (UNAVAILABLE), waits up
  /// to two seconds for calls in flight, then stops. Idempotent.
  void shutdown();

 private:
  /// Health of "" and nhsim.v1.EnsembleService, and the nhsim_health_serving gauge.
  void set_serving(bool serving);
  /// Every second until shutdown: SERVING while the job manager reports no problem; logs each
  /// change from `last_problem`.
  void watch_health(std::string last_problem);

  std::unique_ptr<Metrics> metrics_;
  std::shared_ptr<const wire::TokenTable>
      tokens_;  // as loaded at start (the service has the latest)
  std::filesystem::path tokens_file_;
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<SystemRegistry> systems_;
  std::unique_ptr<EnsembleServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::Server> health_server_;  // health_listen, if any
  int port_ = 0;
  int health_port_ = 0;
  std::once_flag shut_down_;
  std::mutex health_mutex_;
  std::condition_variable health_changed_;
  bool draining_ = false;  // guarded by health_mutex_
  std::thread health_;
};

}  // namespace nhsim::server

// nhsimd: the nhsim ensemble service. Serves nhsim.v1.EnsembleService (plus gRPC health
// checking and reflection) and Prometheus metrics until SIGINT or SIGTERM; SIGHUP reloads the
// tokens file (TLS certificate files are read again every second, without a signal).
#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/server/log.hpp"
#include "nhsim/server/server.hpp"

namespace {

/// Never runs (the signals are blocked and taken by sigwait); installed so that the signals are
/// not ignored when nhsimd runs as PID 1 in a container.
void ignore_signal(int /*signal*/) {}

/// The default --data-dir: $XDG_STATE_HOME/nhsim, else $HOME/.local/state/nhsim; empty when
/// neither variable is set.
std::string default_data_dir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state != '\0') {
    return std::string(state) + "/nhsim";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/state/nhsim";
  }
  return "";
}

/// "host:port" with the port replaced by `port`.
std::string with_port(const std::string& address, int port) {
  return address.substr(0, address.rfind(':')) + ":" + std::to_string(port);
}

}  // namespace

int main(int argc, char** argv) {
  nhsim::server::ServerOptions options;
  CLI::App app{"nhsimd: runs nhsim ensembles as jobs over gRPC (nhsim.v1.EnsembleService)."};
  app.add_option("--listen", options.listen, "gRPC address host:port (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--health-listen", options.health_listen,
                 "plaintext address host:port serving only gRPC health checking, for probes "
                 "that cannot speak TLS (empty: none)");
  app.add_option("--metrics", options.metrics,
                 "Prometheus metrics address host:port, GET /metrics (empty: none)")
      ->capture_default_str();
  app.add_option("--threads", options.threads,
                 "oneTBB threads per job (0: all cores); a job running alone takes "
                 "every runner's")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-running-jobs", options.max_running_jobs,
                 "jobs running at once; they share the threads (a small job does not wait for a "
                 "large one)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-running-per-client", options.max_running_per_client,
                 "jobs of one identity running at once (0: one fewer than --max-running-jobs, at "
                 "least 1, so another identity's job always finds a free runner)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--short-job-steps", options.short_job_steps,
                 "a job of at most this many estimated trajectory-steps may run beyond its "
                 "identity's --max-running-per-client on a free runner, one per identity, so a "
                 "small job does not wait behind its own identity's long ones (0: none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  double drain_seconds = 20;
  app.add_option("--drain-seconds", drain_seconds,
                 "after SIGTERM or SIGINT, the most seconds nhsimd takes to stop: a drain that "
                 "takes longer ends in an exit with status 1 (stored jobs resume at the next "
                 "start)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-queued-jobs", options.max_queued_jobs,
                 "jobs waiting to run; a submit beyond answers RESOURCE_EXHAUSTED")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-jobs-per-client", options.max_jobs_per_client,
                 "unfinished (queued + running) jobs of one identity; a submit beyond answers "
                 "RESOURCE_EXHAUSTED")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  std::int64_t keep_seconds = options.keep_finished_for.count();
  app.add_option("--keep-finished-for", keep_seconds,
                 "how long finished jobs and their results are kept, then evicted: a number "
                 "with unit s, m, h or d (default 7d)")
      ->transform(CLI::AsNumberWithUnit(
          std::map<std::string, std::int64_t>{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}}))
      ->check(CLI::PositiveNumber);
  app.add_option("--keep-finished-jobs-per-client", options.keep_finished_jobs_per_client,
                 "finished jobs kept per identity; beyond, its oldest are evicted (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--keep-finished-jobs", options.keep_finished_jobs,
                 "finished jobs kept in all; beyond, the oldest are evicted (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--keep-finished-mb-per-client", options.keep_finished_mb_per_client,
                 "MiB of results kept per identity; beyond, its oldest finished jobs are "
                 "evicted, though its newest is always kept (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--keep-finished-mb", options.keep_finished_mb,
                 "MiB of results kept in all; beyond, the oldest finished jobs are evicted "
                 "(0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-trajectories", options.max_trajectories,
                 "most initial conditions in one job (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-trajectory-steps", options.max_trajectory_steps,
                 "most trajectory-steps in one job: trajectories x sum over integrators of "
                 "t_final/h (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-job-memory-mb", options.max_job_memory_mb,
                 "most memory for one job's statistics, MiB, estimated at submission (0: no "
                 "limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-result-mb", options.max_result_mb,
                 "largest result, MiB, estimated at submission (0: no limit); results larger "
                 "than one message are read with StreamResult")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-result-streams", options.max_result_streams,
                 "StreamResult calls open at once, in all (0: no limit); each holds a thread")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-result-streams-per-client", options.max_result_streams_per_client,
                 "StreamResult calls open at once per identity (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-watchers", options.max_watchers,
                 "WatchJob calls open at once, in all (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-watchers-per-client", options.max_watchers_per_client,
                 "WatchJob calls open at once per identity (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--stream-write-deadline-seconds", options.stream_write_deadline_seconds,
                 "a StreamResult or WatchJob whose client has not read one message for this "
                 "long is cut off")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--max-message-mb", options.max_message_mb,
                 "largest gRPC message received or sent, MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 2047));
  std::string data_dir = default_data_dir();
  bool in_memory = false;
  auto* data_dir_option =
      app.add_option("--data-dir", data_dir,
                     "durable job store (SQLite): jobs survive restarts and crashes")
          ->capture_default_str();
  auto* in_memory_option = app.add_flag("--in-memory", in_memory,
                                        "keep jobs in memory only: they are lost when nhsimd stops")
                               ->excludes(data_dir_option);
  app.add_flag("--accept-new-store", options.accept_new_store,
               "start on an empty or different database in a --data-dir that held another store "
               "(its store-id): that store's jobs are given up")
      ->excludes(in_memory_option);
  app.add_option("--checkpoint-seconds", options.checkpoint_seconds,
                 "work between two checkpoints of a running job (local executor)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  auto* security = app.add_option_group("Security", "authentication and TLS");
  security->add_option("--tokens-file", options.tokens_file,
                       "bearer tokens: lines \"<sha256 of token> <identity> [admin]\" (make one "
                       "with `nhsim token`); every call then needs a token, and each identity "
                       "sees only its own jobs");
  security->add_flag("--insecure", options.insecure,
                     "allow a non-loopback --listen without --tokens-file: every client can "
                     "read and cancel every job");
  security->add_option("--tls-cert", options.tls_cert, "TLS: PEM certificate chain of the server");
  security->add_option("--tls-key", options.tls_key, "TLS: PEM private key of the server");
  security->add_option("--tls-client-ca", options.tls_client_ca,
                       "mutual TLS: PEM CA certificates; clients must present a certificate "
                       "they signed");
  app.add_option("--executor", options.executor,
                 "where jobs run: local (this machine) or slurm (a job array per job)")
      ->capture_default_str()
      ->check(CLI::IsMember({"local", "slurm"}));
  auto* slurm = app.add_option_group("Slurm executor", "with --executor slurm only");
  auto& so = options.slurm;
  std::vector<CLI::Option*> slurm_options = {
      slurm->add_option("--slurm-dir", so.work_dir,
                        "directory shared with the compute nodes (same path); required"),
      slurm->add_option("--slurm-partition", so.partition, "sbatch --partition"),
      slurm->add_option("--slurm-account", so.account, "sbatch --account"),
      slurm->add_option("--slurm-time", so.time_limit, "sbatch --time per task, e.g. 01:00:00"),
      slurm
          ->add_option("--slurm-max-running", so.max_running,
                       "array tasks in flight per job (0: no limit)")
          ->capture_default_str()
          ->check(CLI::NonNegativeNumber),
      slurm->add_option("--slurm-shard-size", so.shard_size, "trajectories per array task")
          ->capture_default_str()
          ->check(CLI::PositiveNumber),
      slurm
          ->add_option("--slurm-cpus-per-task", so.cpus_per_task,
                       "sbatch --cpus-per-task, and nhsim run --threads")
          ->capture_default_str()
          ->check(CLI::PositiveNumber),
      slurm
          ->add_option("--slurm-max-attempts", so.max_attempts,
                       "runs of a failing task before its job fails")
          ->capture_default_str()
          ->check(CLI::PositiveNumber),
      slurm->add_option("--slurm-nhsim", so.nhsim,
                        "nhsim binary the tasks run (default: the one of this build)"),
      slurm->add_option("--slurm-poll-seconds", so.poll_seconds, "seconds between squeue calls")
          ->capture_default_str()
          ->check(CLI::PositiveNumber)};
  app.set_config("--config", "", "read options from a TOML/INI file (keys: the long option names)");
  CLI11_PARSE(app, argc, argv);
  options.keep_finished_for = std::chrono::seconds(keep_seconds);
  if (!in_memory) {
    if (data_dir.empty()) {
      nhsim::server::log_line(
          "set --data-dir (neither XDG_STATE_HOME nor HOME is set) or --in-memory",
          nhsim::server::LogLevel::kError);
      return 1;
    }
    options.data_dir = data_dir;
  }
  if (options.executor != "slurm") {
    for (const CLI::Option* option : slurm_options) {
      if (option->count() > 0) {
        nhsim::server::log_line(option->get_name() + " applies to --executor slurm only",
                                nhsim::server::LogLevel::kError);
        return 1;
      }
    }
  }

  // Block the signals in every thread (the server's threads inherit the mask) and wait for them
  // here: SIGINT and SIGTERM stop, SIGHUP reloads the tokens file.
  std::signal(SIGINT, ignore_signal);
  std::signal(SIGTERM, ignore_signal);
  std::signal(SIGHUP, ignore_signal);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    nhsim::server::Server server(options);
    std::string line = "listening on " + with_port(options.listen, server.port());
    if (server.health_port() != 0) {
      line += ", health on " + with_port(options.health_listen, server.health_port());
    }
    if (server.metrics_port() != 0) {
      line +=
          ", metrics on http://" + with_port(options.metrics, server.metrics_port()) + "/metrics";
    }
    line += ", job store " +
            (options.data_dir.empty() ? std::string("in memory") : options.data_dir.string()) +
            ", " + options.executor + " executor, threads per job " +
            (options.threads == 0 ? std::string("all cores") : std::to_string(options.threads)) +
            (options.tls_cert.empty() ? ", plaintext" : ", TLS") +
            (options.tls_client_ca.empty() ? "" : " with client certificates") +
            (options.tokens_file.empty() ? ", no authentication" : ", bearer tokens");
    nhsim::server::log_line(line);
    int signal = 0;
    for (sigwait(&stop_signals, &signal); signal == SIGHUP; sigwait(&stop_signals, &signal)) {
      try {
        nhsim::server::log_line("received SIGHUP: " + server.reload_tokens());
      } catch (const std::exception& e) {
        nhsim::server::log_line(std::string("received SIGHUP: tokens not reloaded, the previous "
                                            "ones stay: ") +
                                    e.what(),
                                nhsim::server::LogLevel::kWarning);
      }
    }
    nhsim::server::log_line(std::string("received ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                            ", shutting down");
    // A drain that outlasts --drain-seconds (a request thread inside a custom-system compile,
    // which cannot be interrupted) ends in an exit as if killed, which the job store survives.
    std::thread([drain_seconds] {
      std::this_thread::sleep_for(std::chrono::duration<double>(drain_seconds));
      nhsim::server::log_line(
          "not stopped within --drain-seconds (" +
              nhsim::server::seconds_text(
                  std::chrono::milliseconds(static_cast<std::int64_t>(drain_seconds * 1000))) +
              ", a request still runs): exiting now; stored jobs resume at the next start",
          nhsim::server::LogLevel::kError);
      std::_Exit(1);
    }).detach();
    server.shutdown();
    nhsim::server::log_line("stopped");
  } catch (const std::exception& e) {
    nhsim::server::log_line(e.what(), nhsim::server::LogLevel::kError);
    return 1;
  }
  return 0;
}

// Load driver for nhsimd: starts the real nhsimd on 127.0.0.1 (in memory), keeps one
// large job running, and lets CLIENTS concurrent clients submit JOBS small jobs each, mixed with
// GetJob, WatchJob, ListJobs and CancelJob (every fifth job is cancelled), while a prober calls
// the gRPC health check every 10 ms. Bounded in count and time (--seconds); stops nhsimd by pid.
//
//   build/bench/nhsim_load_driver build/server/nhsimd [--clients 64] [--jobs 10] [--seconds 300]
//
// Prints the unexpected errors (any failed call: the load must cause none), the health-check
// latency (p50, p99, max) under saturation and the time from submitting a small job to its end
// while the large job runs (p50, p99, max). Exit status 1 on any unexpected error.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/client/health.hpp"

extern char** environ;

namespace {

namespace v1 = nhsim::v1;
using nhsim::client::Client;
using Clock = std::chrono::steady_clock;

bool is_terminal(v1::JobState state) {
  return state == v1::SUCCEEDED || state == v1::FAILED || state == v1::CANCELLED;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The q-quantile (nearest rank) of `values`, in place.
double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(k, values.size() - 1)];
}

v1::SubmitEnsembleRequest spec(std::int64_t count, double t_final, const std::string& label) {
  v1::SubmitEnsembleRequest s;
  s.set_system("chaotic_quartic");
  auto* shell = s.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(7);
  shell->set_count(count);
  auto* choice = s.add_integrators();
  choice->set_integrator("rk4");
  choice->set_h(0.05);
  choice->set_sample_every(20);
  s.set_t_final(t_final);
  s.set_label(label);
  return s;
}

/// nhsimd started on a free loopback port, stopped (SIGTERM) by its pid.
class Server {
 public:
  explicit Server(const std::string& nhsimd) {
    char pattern[] = "/tmp/nhsim-load-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    const std::string log = dir_ + "/nhsimd.log";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // Every client is the same anonymous identity here: the per-client limit must hold all of
    // them at once (64 clients and the large job) to measure queueing, not the quota.
    std::vector<std::string> args = {nhsimd,
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--metrics",
                                     "",
                                     "--in-memory",
                                     "--max-queued-jobs",
                                     "1000",
                                     "--max-jobs-per-client",
                                     "1000"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, nhsimd.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("cannot start " + nhsimd);
    }
    posix_spawn_file_actions_destroy(&actions);
    const std::regex listening("listening on (127\\.0\\.0\\.1:[0-9]+)");
    for (int attempt = 0; attempt < 3000 && address_.empty(); ++attempt) {
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      std::smatch match;
      if (std::regex_search(s, match, listening)) address_ = match[1];
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (address_.empty()) throw std::runtime_error("nhsimd did not start; see " + log);
  }
  ~Server() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  const std::string& address() const { return address_; }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  std::string address_;
};

struct Totals {
  std::mutex mutex;
  std::vector<double> small_job_seconds;
  std::vector<std::string> errors;
  std::atomic<int> jobs_done{0};
  std::atomic<int> calls{0};
};

void client_loop(const std::string& address, int jobs, int client_index, Clock::time_point deadline,
                 Totals& totals) {
  const Client client(address);
  for (int j = 0; j < jobs && Clock::now() < deadline; ++j) {
    try {
      const auto submitted = Clock::now();
      const v1::Job job = client.submit(spec(8, 2.0, "load " + std::to_string(client_index)));
      totals.calls += 1;
      const bool cancel = (client_index + j) % 5 == 0;
      if (cancel) {
        client.cancel(job.job_id());
        totals.calls += 1;
      }
      if (j % 2 == 0) {
        client.watch(job.job_id(), nullptr);
      } else {
        while (!is_terminal(client.get_job(job.job_id()).state())) {
          totals.calls += 1;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
      const double seconds = seconds_since(submitted);
      client.list_jobs();
      totals.calls += 2;
      const v1::Job done = client.get_job(job.job_id());
      if (done.state() == v1::SUCCEEDED) (void)client.result(job.job_id());
      totals.calls += 2;
      const std::lock_guard lock(totals.mutex);
      if (!cancel) totals.small_job_seconds.push_back(seconds);
      totals.jobs_done += 1;
    } catch (const std::exception& e) {
      const std::lock_guard lock(totals.mutex);
      totals.errors.push_back(e.what());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NHSIMD [--clients N] [--jobs N] [--seconds N]\n", argv[0]);
    return 2;
  }
  int clients = 64, jobs = 10, limit_seconds = 300;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--clients") clients = value;
    if (flag == "--jobs") jobs = value;
    if (flag == "--seconds") limit_seconds = value;
  }
  const Server server(argv[1]);
  const Client client(server.address());
  const auto deadline = Clock::now() + std::chrono::seconds(limit_seconds);

  // The large job: 2000 trajectories of 4e5 rk4 steps, far longer than the load.
  const v1::Job large = client.submit(spec(2000, 2e4, "large"));
  while (client.get_job(large.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  Totals totals;
  std::atomic<bool> load_running{true};
  std::vector<double> health_ms;
  int health_failures = 0;
  std::thread prober([&] {
    const Client probe(server.address());
    while (load_running) {
      const auto t = Clock::now();
      const auto status =
          nhsim::client::health_status(probe.channel(), "", std::chrono::seconds(10));
      health_ms.push_back(1e3 * seconds_since(t));
      if (status != std::optional<std::uint64_t>(1)) ++health_failures;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });

  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back(client_loop, server.address(), jobs, c, deadline, std::ref(totals));
  }
  for (auto& t : threads) t.join();
  const double load_seconds = seconds_since(start);
  load_running = false;
  prober.join();
  const bool large_still_running = client.get_job(large.job_id()).state() == v1::RUNNING;
  client.cancel(large.job_id());
  client.watch(large.job_id(), nullptr);

  std::vector<double>& small = totals.small_job_seconds;
  std::printf(
      "clients %d x jobs %d: %d jobs done, %d calls in %.1f s; large job still running: "
      "%s\n",
      clients, jobs, totals.jobs_done.load(), totals.calls.load(), load_seconds,
      large_still_running ? "yes" : "no");
  std::printf("unexpected errors: %zu (health check failures: %d)\n", totals.errors.size(),
              health_failures);
  for (std::size_t k = 0; k < std::min<std::size_t>(5, totals.errors.size()); ++k) {
    std::printf("  %s\n", totals.errors[k].c_str());
  }
  std::printf("health check latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%zu checks)\n",
              quantile(health_ms, 0.5), quantile(health_ms, 0.99), quantile(health_ms, 1.0),
              health_ms.size());
  std::printf(
      "small job, submit to end, behind the large one: p50 %.3f s, p99 %.3f s, max "
      "%.3f s (%zu jobs)\n",
      quantile(small, 0.5), quantile(small, 0.99), quantile(small, 1.0), small.size());
  return totals.errors.empty() && health_failures == 0 ? 0 : 1;
}

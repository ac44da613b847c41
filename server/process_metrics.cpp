#include "nhsim/server/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace nhsim::server {
namespace {

prometheus::MetricFamily family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return {name, help, type, {metric}};
}

/// The fields of /proc/self/stat after the command name (field 3, the state, is [0]).
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t name_end = text.rfind(')');  // the name may hold spaces and parentheses
  if (name_end == std::string::npos) return {};
  std::istringstream rest(text.substr(name_end + 1));
  return {std::istream_iterator<std::string>(rest), std::istream_iterator<std::string>()};
}

/// Seconds since the epoch at boot (btime of /proc/stat); 0 if unknown.
double boot_time() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0.0;
  while (in >> key) {
    if (key == "btime" && (in >> value)) return value;
    in.ignore(1 << 20, '\n');
  }
  return 0.0;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessMetrics::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  const std::vector<std::string> stat = stat_fields();
  // proc(5): num_threads (20), starttime (22), vsize (23), rss (24); stat[0] is field 3.
  if (stat.size() >= 22) {
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    families.push_back(family("process_threads", "Number of OS threads in the process",
                              MetricType::Gauge, std::stod(stat[17])));
    families.push_back(family("process_virtual_memory_bytes", "Virtual memory size in bytes",
                              MetricType::Gauge, std::stod(stat[20])));
    families.push_back(family("process_resident_memory_bytes", "Resident memory size in bytes",
                              MetricType::Gauge, std::stod(stat[21]) * page));
    if (const double boot = boot_time(); boot > 0.0) {
      families.push_back(family("process_start_time_seconds",
                                "Start time of the process since unix epoch in seconds",
                                MetricType::Gauge, boot + std::stod(stat[19]) / ticks));
    }
  }
  // getrusage, not /proc/self/stat: microseconds instead of clock ticks (10 ms).
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    families.push_back(
        family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds",
               MetricType::Counter, seconds(usage.ru_utime) + seconds(usage.ru_stime)));
  }
  std::error_code error;
  std::size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++fds;
  }
  if (!error) {
    families.push_back(family("process_open_fds", "Number of open file descriptors",
                              MetricType::Gauge, static_cast<double>(fds)));
  }
  return families;
}

}  // namespace nhsim::server

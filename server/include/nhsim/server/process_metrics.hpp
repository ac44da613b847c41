// The standard process metrics of Prometheus client libraries, read from /proc at each scrape
// (prometheus-cpp has none): resident memory, CPU seconds, threads, open file descriptors,
// start time.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

namespace nhsim::server {

/// process_resident_memory_bytes, process_virtual_memory_bytes, process_cpu_seconds_total,
/// process_threads, process_open_fds and process_start_time_seconds of this process. A value
/// that cannot be read is left out of the scrape.
class ProcessMetrics final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace nhsim::server

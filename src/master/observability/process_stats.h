#pragma once
// The master process's own figures, read from /proc (Linux), for the process_* metrics Prometheus
// clients export (process_cpu_seconds_total, process_resident_memory_bytes, ...).
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace det::master {

struct ProcessStats {
  double cpu_seconds = 0;  // user + system time
  double resident_bytes = 0;
  double virtual_bytes = 0;
  double start_time_seconds = 0;  // since the Unix epoch
  double open_fds = 0;
  double max_fds = 0;  // the soft limit; 0 when unlimited or unknown
  double threads = 0;
};

// What the /proc files say. `stat`: /proc/<pid>/stat; `system_stat`: /proc/stat (for btime);
// `limits`: /proc/<pid>/limits. InvalidArgument naming the file when one cannot be read as
// expected.
absl::StatusOr<ProcessStats> ParseProcessStats(absl::string_view stat,
                                               absl::string_view system_stat,
                                               absl::string_view limits, long ticks_per_second,
                                               long page_size);

// The calling process's figures, now. Safe to call from any thread.
absl::StatusOr<ProcessStats> ReadProcessStats();

}  // namespace det::master

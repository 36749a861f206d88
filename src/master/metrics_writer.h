#pragma once
// Group commit for metric reports. Request handlers on any thread hand in one trial's reports with a
// callback and return; one thread commits everything handed in meanwhile in one transaction
// (MetricStore::AddMetricsBatch), then calls each callback: a report is acknowledged only once it is
// committed. When a group fails, each part is tried alone, so a bad part fails only its own caller.
// 50 reporters cost one transaction per round instead of 50.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "master/db/metric_store.h"

namespace det::master {

class MetricsWriter {
 public:
  using Done = std::function<void(absl::StatusOr<std::vector<int64_t>> ids)>;

  explicit MetricsWriter(MetricStore& store, size_t max_reports_per_commit = 10000);
  // Commits what was handed in, then stops.
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  // `done` runs on the writer's thread once the reports are committed (or failed).
  void Add(TrialReports reports, Done done);

 private:
  struct Pending {
    TrialReports reports;
    Done done;
  };
  void Run();
  void Commit(std::vector<Pending>& group);

  MetricStore& store_;
  const size_t max_reports_per_commit_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  std::thread thread_;
};

}  // namespace det::master

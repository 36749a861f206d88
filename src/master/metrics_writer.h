#pragma once
// Group commit for metric reports. Request handlers on any thread hand in one trial's reports with a
// callback and return; a writer thread commits everything handed in meanwhile in one transaction
// (MetricStore::AddMetricsBatch), then calls each callback: a report is acknowledged only once it is
// committed. When a group fails, each part is tried alone, so a bad part fails only its own caller.
// 50 reporters cost one transaction per round instead of 50.
// There is one thread for each of the store's metric writers (two on PostgreSQL, whose one connection
// cannot commit more than about 77,000 rows a second); a trial's reports always go to the same one.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
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

  // `done` runs on a writer's thread once the reports are committed (or failed).
  void Add(TrialReports reports, Done done);

  // What the writer did since it started, for observers (Prometheus). Safe to call from any thread.
  struct Figures {
    uint64_t reports_committed = 0;  // metric rows stored
    uint64_t reports_failed = 0;     // reports whose caller got an error
    uint64_t commits = 0;            // transactions that stored reports
    size_t reports_queued = 0;       // handed in, not yet committed
  };
  Figures figures() const;

 private:
  struct Pending {
    TrialReports reports;
    Done done;
  };
  // One of the store's metric writers, with its queue and thread.
  struct Lane {
    std::mutex mu;
    std::condition_variable wake;
    std::deque<Pending> queue;  // guarded by mu
    bool stopping = false;      // guarded by mu
    std::thread thread;
  };
  void Run(Lane& lane, int writer);
  void Commit(std::vector<Pending>& group, int writer);
  // AddMetricsBatch, tried again a few times while another transaction holds one of the trials.
  absl::StatusOr<std::vector<std::vector<int64_t>>> AddBatch(const std::vector<TrialReports>& parts, int writer);

  // The outcome of `pending` (of `n` reports), counted, then handed to its caller.
  void Finish(Pending& pending, size_t n, absl::StatusOr<std::vector<int64_t>> ids);

  MetricStore& store_;
  const size_t max_reports_per_commit_;
  std::atomic<uint64_t> reports_committed_{0};
  std::atomic<uint64_t> reports_failed_{0};
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> reports_handed_in_{0};
  std::atomic<uint64_t> reports_finished_{0};
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace det::master

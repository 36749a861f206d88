#include "master/metrics_writer.h"

#include <utility>

namespace det::master {

MetricsWriter::MetricsWriter(MetricStore& store, size_t max_reports_per_commit)
    : store_(store), max_reports_per_commit_(max_reports_per_commit), thread_([this] { Run(); }) {}

MetricsWriter::~MetricsWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void MetricsWriter::Add(TrialReports reports, Done done) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back({std::move(reports), std::move(done)});
  }
  wake_.notify_one();
}

void MetricsWriter::Run() {
  while (true) {
    std::vector<Pending> group;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing is left
      size_t reports = 0;
      // Whole parts only; at least one, however large.
      while (!queue_.empty() && (group.empty() || reports + queue_.front().reports.reports.size() <= max_reports_per_commit_)) {
        reports += queue_.front().reports.reports.size();
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    Commit(group);
  }
}

void MetricsWriter::Commit(std::vector<Pending>& group) {
  std::vector<TrialReports> parts;
  parts.reserve(group.size());
  for (Pending& p : group) parts.push_back(std::move(p.reports));
  absl::StatusOr<std::vector<std::vector<int64_t>>> ids = store_.AddMetricsBatch(parts);
  if (ids.ok()) {
    for (size_t i = 0; i < group.size(); ++i) group[i].done(std::move((*ids)[i]));
    return;
  }
  if (group.size() == 1) return group.front().done(ids.status());
  for (size_t i = 0; i < group.size(); ++i) {
    std::vector<TrialReports> one;
    one.push_back(std::move(parts[i]));
    absl::StatusOr<std::vector<std::vector<int64_t>>> alone = store_.AddMetricsBatch(one);
    if (alone.ok()) {
      group[i].done(std::move(alone->front()));
    } else {
      group[i].done(alone.status());
    }
  }
}

}  // namespace det::master

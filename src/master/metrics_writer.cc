#include "master/metrics_writer.h"

#include <chrono>
#include <utility>

namespace det::master {

MetricsWriter::MetricsWriter(MetricStore& store, size_t max_reports_per_commit)
    : store_(store), max_reports_per_commit_(max_reports_per_commit) {
  for (int writer = 0; writer < store_.MetricWriters(); ++writer) {
    lanes_.push_back(std::make_unique<Lane>());
    Lane& lane = *lanes_.back();
    lane.thread = std::thread([this, &lane, writer] { Run(lane, writer); });
  }
}

MetricsWriter::~MetricsWriter() {
  for (auto& lane : lanes_) {
    {
      std::lock_guard lock(lane->mu);
      lane->stopping = true;
    }
    lane->wake.notify_one();
  }
  for (auto& lane : lanes_) lane->thread.join();
}

void MetricsWriter::Add(TrialReports reports, Done done) {
  const int64_t trial_id = reports.reports.empty() ? 0 : reports.reports.front().trial_id;
  Lane& lane = *lanes_[static_cast<uint64_t>(trial_id) % lanes_.size()];
  reports_handed_in_ += reports.reports.size();
  {
    std::lock_guard lock(lane.mu);
    lane.queue.push_back({std::move(reports), std::move(done)});
  }
  lane.wake.notify_one();
}

void MetricsWriter::Run(Lane& lane, int writer) {
  while (true) {
    std::vector<Pending> group;
    {
      std::unique_lock lock(lane.mu);
      lane.wake.wait(lock, [&lane] { return lane.stopping || !lane.queue.empty(); });
      if (lane.queue.empty()) return;  // stopping, and nothing is left
      size_t reports = 0;
      // Whole parts only; at least one, however large.
      while (!lane.queue.empty() &&
             (group.empty() || reports + lane.queue.front().reports.reports.size() <= max_reports_per_commit_)) {
        reports += lane.queue.front().reports.reports.size();
        group.push_back(std::move(lane.queue.front()));
        lane.queue.pop_front();
      }
    }
    Commit(group, writer);
  }
}

absl::StatusOr<std::vector<std::vector<int64_t>>> MetricsWriter::AddBatch(const std::vector<TrialReports>& parts,
                                                                          int writer) {
  // The other transaction is short (a state change, an experiment's deletion): 1 ms, then 2, 4, ...
  // up to about a second in all.
  auto wait = std::chrono::milliseconds(1);
  while (true) {
    absl::StatusOr<std::vector<std::vector<int64_t>>> ids = store_.AddMetricsBatch(parts, writer);
    if (!absl::IsAborted(ids.status()) || wait > std::chrono::milliseconds(512)) return ids;
    std::this_thread::sleep_for(wait);
    wait *= 2;
  }
}

void MetricsWriter::Commit(std::vector<Pending>& group, int writer) {
  std::vector<TrialReports> parts;
  std::vector<size_t> counts;  // each part's reports, for the figures
  parts.reserve(group.size());
  for (Pending& p : group) {
    counts.push_back(p.reports.reports.size());
    parts.push_back(std::move(p.reports));
  }
  absl::StatusOr<std::vector<std::vector<int64_t>>> ids = AddBatch(parts, writer);
  if (ids.ok()) {
    ++commits_;
    for (size_t i = 0; i < group.size(); ++i) Finish(group[i], counts[i], std::move((*ids)[i]));
    return;
  }
  if (group.size() == 1) return Finish(group.front(), counts.front(), ids.status());
  for (size_t i = 0; i < group.size(); ++i) {
    std::vector<TrialReports> one;
    one.push_back(std::move(parts[i]));
    absl::StatusOr<std::vector<std::vector<int64_t>>> alone = AddBatch(one, writer);
    if (alone.ok()) {
      ++commits_;
      Finish(group[i], counts[i], std::move(alone->front()));
    } else {
      Finish(group[i], counts[i], alone.status());
    }
  }
}

void MetricsWriter::Finish(Pending& pending, size_t n, absl::StatusOr<std::vector<int64_t>> ids) {
  (ids.ok() ? reports_committed_ : reports_failed_) += n;
  reports_finished_ += n;
  pending.done(std::move(ids));
}

MetricsWriter::Figures MetricsWriter::figures() const {
  Figures out;
  out.reports_committed = reports_committed_.load();
  out.reports_failed = reports_failed_.load();
  out.commits = commits_.load();
  // Finished is read first: the difference never goes below zero.
  const uint64_t finished = reports_finished_.load();
  out.reports_queued = static_cast<size_t>(reports_handed_in_.load() - finished);
  return out;
}

}  // namespace det::master

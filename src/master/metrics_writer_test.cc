#include "master/metrics_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>

namespace det::master {
namespace {

// A MetricStore that records each commit's parts and writer and can refuse a trial or abort (a fake:
// the real stores pass store_conformance_test.cc).
class RecordingStore : public MetricStore {
 public:
  int MetricWriters() const override { return writers; }
  absl::StatusOr<std::vector<std::vector<int64_t>>> AddMetricsBatch(const std::vector<TrialReports>& parts,
                                                                    int writer) override {
    std::vector<std::vector<int64_t>> ids;
    {
      std::lock_guard lock(mu);
      commits.push_back(parts.size());
      for (const TrialReports& p : parts) trials_by_writer[writer].push_back(p.reports.front().trial_id);
      if (aborts_left > 0) {
        --aborts_left;
        return absl::AbortedError("trial row locked");
      }
      for (const TrialReports& p : parts) {
        if (!p.reports.empty() && p.reports.front().trial_id == bad_trial) return absl::NotFoundError("trial not found");
      }
      for (const TrialReports& p : parts) {
        ids.emplace_back();
        for (size_t i = 0; i < p.reports.size(); ++i) ids.back().push_back(++next_id);
      }
    }
    if (hold != nullptr && writer == held_writer) hold->wait();
    return ids;
  }
  absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t, const std::string&, const BatchRange&) override {
    return std::vector<api::MetricsReport>{};
  }

  int writers = 1;
  std::mutex mu;
  std::vector<size_t> commits;  // parts per commit
  std::map<int, std::vector<int64_t>> trials_by_writer;
  int64_t next_id = 0;
  int64_t bad_trial = -1;
  int aborts_left = 0;
  std::shared_future<void>* hold = nullptr;  // commits of `held_writer` wait on it
  int held_writer = 0;
};

TrialReports Reports(int64_t trial, int n) {
  TrialReports r;
  for (int i = 0; i < n; ++i) {
    api::MetricsReport m;
    m.trial_id = trial;
    r.reports.push_back(m);
  }
  r.update_summary = [](api::Trial&, const std::vector<api::MetricsReport>&) {};
  return r;
}

TEST(MetricsWriterTest, ReportsHandedInDuringACommitShareTheNext) {
  RecordingStore store;
  std::promise<void> release;
  std::shared_future<void> held = release.get_future().share();
  store.hold = &held;
  std::vector<std::future<absl::StatusOr<std::vector<int64_t>>>> results;
  {
    MetricsWriter writer(store);
    auto add = [&](int64_t trial, int n) {
      auto p = std::make_shared<std::promise<absl::StatusOr<std::vector<int64_t>>>>();
      results.push_back(p->get_future());
      writer.Add(Reports(trial, n), [p](absl::StatusOr<std::vector<int64_t>> ids) { p->set_value(std::move(ids)); });
    };
    add(1, 1);  // the first commit starts and waits on `hold`
    while (true) {
      std::lock_guard lock(store.mu);
      if (!store.commits.empty()) break;
    }
    for (int t = 2; t <= 6; ++t) add(t, 2);
    release.set_value();
  }  // the destructor commits what is left
  ASSERT_EQ(store.commits, (std::vector<size_t>{1, 5}));
  for (auto& r : results) ASSERT_TRUE(r.get().ok());
}

TEST(MetricsWriterTest, ABadPartFailsAloneAndTheOthersAreStored) {
  RecordingStore store;
  store.bad_trial = 3;
  std::promise<void> release;
  std::shared_future<void> held = release.get_future().share();
  std::map<int64_t, absl::Status> outcome;
  std::mutex mu;
  MetricsWriter::Figures queued, done;
  {
    MetricsWriter writer(store);
    // Hold the writer on a first commit so that the next three arrive together.
    store.hold = &held;
    writer.Add(Reports(1, 1), [](absl::StatusOr<std::vector<int64_t>>) {});
    while (true) {
      std::lock_guard lock(store.mu);
      if (!store.commits.empty()) break;
    }
    std::promise<void> all_done;
    for (int64_t t : {2, 3, 4}) {
      writer.Add(Reports(t, t == 4 ? 2 : 1), [&, t](absl::StatusOr<std::vector<int64_t>> ids) {
        std::lock_guard lock(mu);
        outcome[t] = ids.status();
        if (outcome.size() == 3) all_done.set_value();
      });
    }
    queued = writer.figures();
    release.set_value();
    all_done.get_future().wait();
    done = writer.figures();
  }
  // Five reports handed in, none committed yet: the first is in its held commit, four wait behind
  // it.
  EXPECT_EQ(queued.reports_queued, 5u);
  EXPECT_EQ(queued.reports_committed, 0u);
  EXPECT_EQ(done.reports_queued, 0u);
  EXPECT_EQ(done.reports_committed, 4u);  // 1, 2 and 4's two
  EXPECT_EQ(done.reports_failed, 1u);
  EXPECT_EQ(done.commits, 3u);  // 1 alone, then 2 and 4 alone
  EXPECT_TRUE(outcome[2].ok());
  EXPECT_EQ(outcome[3].code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(outcome[4].ok());
  // 1 alone, then {2,3,4} failed together, then each alone.
  EXPECT_EQ(store.commits, (std::vector<size_t>{1, 3, 1, 1, 1}));
}

TEST(MetricsWriterTest, EachTrialKeepsToOneWriterAndTheWritersCommitSideBySide) {
  RecordingStore store;
  store.writers = 2;
  std::promise<void> release;
  std::shared_future<void> held = release.get_future().share();
  store.hold = &held;
  store.held_writer = 0;
  std::promise<absl::Status> odd_trial_done;
  {
    MetricsWriter writer(store);
    writer.Add(Reports(2, 1), [](absl::StatusOr<std::vector<int64_t>>) {});  // writer 0, held
    writer.Add(Reports(3, 1), [&](absl::StatusOr<std::vector<int64_t>> ids) { odd_trial_done.set_value(ids.status()); });
    // Committed by writer 1 while writer 0 is held.
    EXPECT_TRUE(odd_trial_done.get_future().get().ok());
    for (int64_t t : {4, 5, 6, 7}) writer.Add(Reports(t, 1), [](absl::StatusOr<std::vector<int64_t>>) {});
    release.set_value();
  }
  EXPECT_EQ(store.trials_by_writer[0], (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(store.trials_by_writer[1], (std::vector<int64_t>{3, 5, 7}));
}

TEST(MetricsWriterTest, ACommitAbortedByALockedTrialIsTriedAgain) {
  RecordingStore store;
  store.aborts_left = 2;
  std::promise<absl::StatusOr<std::vector<int64_t>>> result;
  {
    MetricsWriter writer(store);
    writer.Add(Reports(1, 2), [&](absl::StatusOr<std::vector<int64_t>> ids) { result.set_value(std::move(ids)); });
  }
  absl::StatusOr<std::vector<int64_t>> ids = result.get_future().get();
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(store.commits, (std::vector<size_t>{1, 1, 1}));
}

}  // namespace
}  // namespace det::master

#pragma once
// What a metrics report needs to know of its trial and of the allocation that sends it, none of which
// changes while the trial runs: the trial's experiment, task and searcher metric, and the task an
// allocation belongs to. Read from the store once and kept for a minute (bounded), so that a report
// costs no reads of its own; ingestion at 100,000 rows/s has no room for five reads per request.
// SQLite may give a deleted experiment's trial ids to new trials: kept facts are checked against
// the reporting allocation's task (allocation ids are never reused) and read again when they differ.
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/timed_cache.h"
#include "master/db/store.h"

namespace det::master {

struct TrialFacts {
  int64_t experiment_id = 0;
  std::string task_id;
  SearcherMetric searcher;
};

class TrialFactsCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TrialFactsCache(Store& store, std::chrono::seconds ttl = std::chrono::seconds(60),
                           size_t capacity = 100000)
      : store_(store), trials_(ttl, capacity), allocations_(ttl, capacity) {}

  // `fresh`: read from the store (and kept) even when kept facts are young enough.
  absl::StatusOr<TrialFacts> Trial(int64_t trial_id, bool fresh = false, Clock::time_point now = Clock::now());
  absl::StatusOr<std::string> TaskOfAllocation(const std::string& allocation_id, Clock::time_point now = Clock::now());
  // The trial's facts for a report that `allocation_id` sends: kept facts when they name the
  // allocation's task, else read again; PermissionDenied when the trial is not the allocation's. An
  // empty allocation (a user's report) reads the trial afresh and checks nothing.
  absl::StatusOr<TrialFacts> TrialReportedBy(int64_t trial_id, const std::string& allocation_id,
                                             Clock::time_point now = Clock::now());

 private:
  Store& store_;
  TimedCache<int64_t, TrialFacts> trials_;
  TimedCache<std::string, std::string> allocations_;  // allocation id -> its task id
};

}  // namespace det::master

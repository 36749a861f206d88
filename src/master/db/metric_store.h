#pragma once
// Trials' metric reports.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// Which of a trial's reports a metrics query returns: start <= total_batches (<= end when set).
struct BatchRange {
  int64_t start = 0;
  std::optional<int64_t> end;
};

// Folds reports (in order) into a trial's summary fields (total_batches, latest/best validation,
// summary metrics, searcher metric value); only those fields and the id are set in the trial it is
// given. Called once for each part, with all its reports: the summary is parsed once, not per report.
using SummaryUpdate = std::function<void(api::Trial&, const std::vector<api::MetricsReport>&)>;

// One trial's reports, in order, with the summary update for them.
struct TrialReports {
  std::vector<api::MetricsReport> reports;
  SummaryUpdate update_summary;
};

class MetricStore {
 public:
  virtual ~MetricStore() = default;

  // How many metric writers commit side by side: AddMetricsBatch calls with different `writer`s
  // (0 .. MetricWriters() - 1) may run at once. A trial's reports always go through the same writer,
  // so they are stored in the order they came.
  virtual int MetricWriters() const = 0;
  // Inserts the reports of every part in one transaction (all stored or none) and applies each
  // part's summary update, parts in order; each trial's summary is read once and written once. Returns
  // the ids, part by part. InvalidArgument when a part holds reports of more than one trial;
  // NotFound for an unknown trial; Aborted when another transaction holds one of the trials (try
  // again: a metric writer never waits for a lock, so it cannot deadlock with other writes).
  virtual absl::StatusOr<std::vector<std::vector<int64_t>>> AddMetricsBatch(const std::vector<TrialReports>& parts,
                                                                            int writer) = 0;
  // Reports of one trial and group ("" = every group) within `range`, ordered by total_batches then id.
  virtual absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t trial_id, const std::string& group,
                                                                     const BatchRange& range) = 0;
};

}  // namespace det::master

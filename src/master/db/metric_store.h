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

class MetricStore {
 public:
  virtual ~MetricStore() = default;

  // Metrics: inserts reports of one trial and, in the same transaction (all stored or none), applies
  // `update_summary` for each report in order to the trial's summary fields (total_batches, latest/best
  // validation, summary metrics, searcher metric value). Returns their ids.
  virtual absl::StatusOr<std::vector<int64_t>> AddMetrics(
      const std::vector<api::MetricsReport>& reports,
      const std::function<void(api::Trial&, const api::MetricsReport&)>& update_summary) = 0;
  // Reports of one trial and group within `range`, ordered by total_batches then id.
  virtual absl::StatusOr<std::vector<api::MetricsReport>> GetMetrics(int64_t trial_id, const std::string& group,
                                                                     const BatchRange& range) = 0;
};

}  // namespace det::master

#pragma once
// Reads the metric reports of one request: the body of POST /api/v1/trials/{id}/metrics (one report:
// {"metrics": {"trialId", "trialRunId", "stepsCompleted", "reportTime", "metrics": {"avgMetrics",
// "batchMetrics"}}, "group"}) or of .../metrics/batch ({"reports": [such bodies]}). Both spellings of
// every field are read (lowerCamel and snake_case), int64 fields also as decimal strings.
//
// The hot path of ingestion: the body is parsed once, validated whole, into simdjson's tape (no tree
// of allocated nodes), and each report's avgMetrics and batchMetrics are written out minified for
// storage, while avgMetrics' values are read for the trial's summary (docs/decisions.md: why
// simdjson here). A malformed body or report is InvalidArgument naming the field.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/types.h"
#include "master/metric_summary.h"

namespace det::master {

struct ReadReport {
  api::MetricsReport report;              // its metrics_json and batch_metrics_json minified JSON
                                          // (batch_metrics_json "null" when the report has none)
  std::vector<MetricPoint> avg_metrics;  // report.metrics_json's values, in its order
};

// `batch`: the body is {"reports": [...]} of 1 to `max_reports` reports. Every report must be of
// trial `trial_id` (a trialId in the body that differs is refused).
absl::StatusOr<std::vector<ReadReport>> ReadMetricReports(std::string_view body, int64_t trial_id, bool batch,
                                                          size_t max_reports);

}  // namespace det::master

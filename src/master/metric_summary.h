#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/types.h"

namespace det::master {

// Folds a new metrics report into a trial's summary fields (done at ingest; never recomputed by
// scans): total_batches, latest/best validation (MetricsWorkload JSON), searcher_metric_value and
// summary_metrics ({"avg_metrics"|"validation_metrics"|group: {name: {count,last,max,min,sum,mean,type}}}).
// Returns the report's searcher metric value when it is a validation report that carries one.
std::optional<double> ApplyMetricsToTrial(api::Trial& trial, const api::MetricsReport& report,
                                          const std::string& searcher_metric, bool smaller_is_better);

// One value of a report's avgMetrics: a number, or any other JSON value as its text.
struct MetricPoint {
  std::string name;
  std::optional<double> number;
  std::string other_json;  // when not a number
};

// The profiler's system-metric groups (gpu, cpu, memory, disk, network): stored as reported, left out of
// the trial's summary metrics and total batches, as upstream.
bool IsProfilingGroup(const std::string& group);

// The points of an avgMetrics object.
std::vector<MetricPoint> MetricPointsOf(const nlohmann::json& avg_metrics);

// ApplyMetricsToTrial for several reports in order, given their metrics read (`points[i]` are
// reports[i].metrics_json's values, read from the request): the summary JSON is written once, and
// parsed once, or not at all when this thread wrote it last (the parsed summary is kept, by trial
// id); the reports' metrics are not parsed again (validations, which are few, excepted).
void ApplyReportsToTrial(api::Trial& trial, const std::vector<api::MetricsReport>& reports,
                         const std::vector<std::vector<MetricPoint>>& points, const std::string& searcher_metric,
                         bool smaller_is_better);

// MetricsWorkload: {"endTime", "metrics": {"avgMetrics", "batchMetrics"}, "numInputs", "totalBatches"}.
nlohmann::json MetricsWorkloadJson(const api::MetricsReport& report, const nlohmann::json& avg_metrics,
                                   const nlohmann::json& batch_metrics);

// The numeric value of metric `name` in a report's avg_metrics object; nullopt when absent or not a number.
std::optional<double> MetricValue(const nlohmann::json& metrics, const std::string& name);

// Whether `candidate` beats the best value so far (none yet: it does).
bool IsBetterMetric(double candidate, std::optional<double> best, bool smaller_is_better);

}  // namespace det::master

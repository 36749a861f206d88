#pragma once
// Downsampled metric series for charts (upstream's CompareTrials / SummarizeTrial).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/types.h"

namespace det::master {

// Which `max_points` of `count` ordered points a chart keeps: all when they fit; else the first, the
// last, and between them one point per equal share of the rest, so the series keeps its whole batch
// range and shape. Indices ascending; max_points < 2 is treated as 2.
std::vector<size_t> DownsampleIndices(size_t count, size_t max_points);

// One DownsampledMetrics message for a trial's reports of `group` (ordered by batches):
// {"data": [{"batches", "values", "time", "epoch"?}], "type", "group"}, at most `max_points` points,
// each with the values of `names` the report has (every value when `names` is empty). Reports that
// carry none of the names are left out before downsampling. `epoch` is the report's "epoch" value.
nlohmann::json DownsampledMetricsJson(const std::vector<api::MetricsReport>& reports, const std::string& group,
                                      const std::vector<std::string>& names, size_t max_points);

// METRIC_TYPE_TRAINING for "training", METRIC_TYPE_VALIDATION for "validation", else
// METRIC_TYPE_UNSPECIFIED (custom groups).
std::string MetricTypeName(const std::string& group);

}  // namespace det::master

#include "master/metric_series.h"

#include <algorithm>

#include "common/time_util.h"

namespace det::master {

using nlohmann::json;

std::vector<size_t> DownsampleIndices(size_t count, size_t max_points) {
  max_points = std::max<size_t>(max_points, 2);
  std::vector<size_t> keep;
  if (count <= max_points) {
    for (size_t i = 0; i < count; ++i) keep.push_back(i);
    return keep;
  }
  // Points 1 .. count-2 fall into max_points-2 equal shares; each share keeps its first point.
  size_t inner = count - 2;
  size_t shares = max_points - 2;
  keep.push_back(0);
  for (size_t s = 0; s < shares; ++s) keep.push_back(1 + s * inner / shares);
  keep.push_back(count - 1);
  return keep;
}

std::string MetricTypeName(const std::string& group) {
  if (group == "training") return "METRIC_TYPE_TRAINING";
  if (group == "validation") return "METRIC_TYPE_VALIDATION";
  return "METRIC_TYPE_UNSPECIFIED";
}

json DownsampledMetricsJson(const std::vector<api::MetricsReport>& reports, const std::string& group,
                            const std::vector<std::string>& names, size_t max_points) {
  // Reports that may carry one of the names, found without parsing: the stored text is compact JSON,
  // so a key appears as "NAME":. Only the points kept are parsed.
  std::vector<std::string> keys;
  for (const std::string& name : names) keys.push_back(json(name).dump() + ":");
  std::vector<const api::MetricsReport*> candidates;
  candidates.reserve(reports.size());
  for (const api::MetricsReport& r : reports) {
    bool has_one = keys.empty() || std::any_of(keys.begin(), keys.end(), [&r](const std::string& key) {
                     return r.metrics_json.find(key) != std::string::npos;
                   });
    if (has_one) candidates.push_back(&r);
  }
  json data = json::array();
  for (size_t i : DownsampleIndices(candidates.size(), max_points)) {
    const api::MetricsReport& r = *candidates[i];
    json all = json::parse(r.metrics_json, nullptr, /*allow_exceptions=*/false);
    if (!all.is_object()) continue;
    json values = names.empty() ? all : json::object();
    for (const std::string& name : names) {
      if (auto it = all.find(name); it != all.end()) values[name] = *it;
    }
    if (values.empty()) continue;  // the name was inside a string value
    json point = {{"batches", r.total_batches}, {"values", std::move(values)}, {"time", FormatRfc3339(r.end_time)}};
    if (auto epoch = all.find("epoch"); epoch != all.end() && epoch->is_number()) point["epoch"] = *epoch;
    data.push_back(std::move(point));
  }
  return {{"data", std::move(data)}, {"type", MetricTypeName(group)}, {"group", group}};
}

}  // namespace det::master

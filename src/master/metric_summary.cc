#include "master/metric_summary.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace det::master {

using nlohmann::json;

namespace {

std::string SummaryKey(const std::string& group) {
  if (group == "training") return "avg_metrics";
  if (group == "validation") return "validation_metrics";
  return group;
}

}  // namespace

json MetricsWorkloadJson(const api::MetricsReport& r, const json& avg_metrics, const json& batch_metrics) {
  return {{"endTime", FormatRfc3339(r.end_time)},
          {"metrics", {{"avgMetrics", avg_metrics}, {"batchMetrics", batch_metrics}}},
          {"numInputs", 0},
          {"totalBatches", r.total_batches}};
}

bool IsBetterMetric(double candidate, std::optional<double> best, bool smaller_is_better) {
  return !best || (smaller_is_better ? candidate < *best : candidate > *best);
}

namespace {

// Folds one report into the trial and its parsed summary (written back by the caller).
std::optional<double> Fold(api::Trial& trial, json& summary, const api::MetricsReport& report, const json& metrics,
                           const std::string& searcher_metric, bool smaller_is_better) {
  if (!metrics.is_object()) return std::nullopt;
  trial.total_batches = std::max(trial.total_batches, report.total_batches);

  json& group = summary[SummaryKey(report.group)];
  if (!group.is_object()) group = json::object();
  for (const auto& [name, value] : metrics.items()) {
    json& s = group[name];
    if (!value.is_number()) {
      s = {{"type", value.is_string() ? "string" : value.is_boolean() ? "boolean" : "object"}, {"last", value}};
      continue;
    }
    double v = value.get<double>();
    if (!s.is_object() || s.value("type", "") != "number") {
      s = {{"type", "number"}, {"count", 0}, {"sum", 0.0}, {"min", v}, {"max", v}};
    }
    json& count = s["count"];
    json& sum = s["sum"];
    json& min = s["min"];
    json& max = s["max"];
    count = count.get<int64_t>() + 1;
    sum = sum.get<double>() + v;
    min = std::min(min.get<double>(), v);
    max = std::max(max.get<double>(), v);
    s["last"] = v;
    s["mean"] = sum.get<double>() / static_cast<double>(count.get<int64_t>());
  }

  if (report.group != "validation") return std::nullopt;
  trial.latest_validation_json = MetricsWorkloadJson(report, metrics, json::array()).dump();
  std::optional<double> value = MetricValue(metrics, searcher_metric);
  if (!value.has_value()) return std::nullopt;
  double v = *value;
  if (IsBetterMetric(v, trial.searcher_metric_value, smaller_is_better)) {
    trial.searcher_metric_value = v;
    trial.best_validation_json = MetricsWorkloadJson(report, metrics, json::array()).dump();
  }
  return v;
}

json ParsedSummary(const api::Trial& trial) {
  json summary = json::parse(trial.summary_metrics_json, nullptr, false);
  return summary.is_object() ? summary : json::object();
}

}  // namespace

std::optional<double> ApplyMetricsToTrial(api::Trial& trial, const api::MetricsReport& report,
                                          const std::string& searcher_metric, bool smaller_is_better) {
  json summary = ParsedSummary(trial);
  std::optional<double> value = Fold(trial, summary, report, json::parse(report.metrics_json, nullptr, false),
                                     searcher_metric, smaller_is_better);
  trial.summary_metrics_json = summary.dump();
  return value;
}

void ApplyReportsToTrial(api::Trial& trial, const std::vector<api::MetricsReport>& reports,
                         const std::vector<json>& metrics, const std::string& searcher_metric,
                         bool smaller_is_better) {
  json summary = ParsedSummary(trial);
  for (size_t i = 0; i < reports.size() && i < metrics.size(); ++i) {
    Fold(trial, summary, reports[i], metrics[i], searcher_metric, smaller_is_better);
  }
  trial.summary_metrics_json = summary.dump();
}

std::optional<double> MetricValue(const nlohmann::json& metrics, const std::string& name) {
  auto it = metrics.find(name);
  if (it == metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace det::master

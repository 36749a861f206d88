#include "master/metric_summary.h"

#include <algorithm>
#include <map>
#include <unordered_map>
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

// Folds reports into a trial and its parsed summary (written back by the caller). The numbers of a
// name are added up first and merged into the summary's JSON once (at Finish, or before a value of
// the name that is not a number), so a batch of reports costs one JSON update a name, not one a value.
class SummaryFolder {
 public:
  explicit SummaryFolder(json& summary) : summary_(summary) {}

  std::optional<double> Fold(api::Trial& trial, const api::MetricsReport& report,
                             const std::vector<MetricPoint>& points, const std::string& searcher_metric,
                             bool smaller_is_better) {
    if (IsProfilingGroup(report.group)) return std::nullopt;  // stored raw, as upstream: no summary
    trial.total_batches = std::max(trial.total_batches, report.total_batches);
    const std::string key = SummaryKey(report.group);
    json& group = summary_[key];
    if (!group.is_object()) group = json::object();
    std::unordered_map<std::string, Numbers>& pending = pending_[key];
    std::optional<double> searcher_value;
    for (const MetricPoint& point : points) {
      if (!point.number.has_value()) {
        if (auto it = pending.find(point.name); it != pending.end()) {
          Merge(group, point.name, it->second);
          pending.erase(it);
        }
        json value = json::parse(point.other_json, nullptr, false);
        group[point.name] = {{"type", value.is_string() ? "string" : value.is_boolean() ? "boolean" : "object"},
                             {"last", value}};
        continue;
      }
      const double v = *point.number;
      if (point.name == searcher_metric) searcher_value = v;
      Numbers& n = pending[point.name];
      if (n.count == 0) n.min = n.max = v;
      ++n.count;
      n.sum += v;
      n.min = std::min(n.min, v);
      n.max = std::max(n.max, v);
      n.last = v;
    }

    if (report.group != "validation") return std::nullopt;
    const json metrics = json::parse(report.metrics_json, nullptr, false);
    trial.latest_validation_json = MetricsWorkloadJson(report, metrics, json::array()).dump();
    if (!searcher_value.has_value()) return std::nullopt;
    if (IsBetterMetric(*searcher_value, trial.searcher_metric_value, smaller_is_better)) {
      trial.searcher_metric_value = searcher_value;
      trial.best_validation_json = MetricsWorkloadJson(report, metrics, json::array()).dump();
    }
    return searcher_value;
  }

  void Finish() {
    for (const auto& [key, names] : pending_) {
      json& group = summary_[key];
      for (const auto& [name, numbers] : names) Merge(group, name, numbers);
    }
    pending_.clear();
  }

 private:
  struct Numbers {
    int64_t count = 0;
    double sum = 0, min = 0, max = 0, last = 0;
  };

  // {count, sum, min, max, last, mean, type: "number"}; what was there is replaced when not a number's.
  static void Merge(json& group, const std::string& name, const Numbers& n) {
    json& s = group[name];
    if (!s.is_object() || s.value("type", "") != "number") {
      s = {{"type", "number"}, {"count", 0}, {"sum", 0.0}, {"min", n.min}, {"max", n.max}};
    }
    json& count = s["count"];
    json& sum = s["sum"];
    count = count.get<int64_t>() + n.count;
    sum = sum.get<double>() + n.sum;
    s["min"] = std::min(s["min"].get<double>(), n.min);
    s["max"] = std::max(s["max"].get<double>(), n.max);
    s["last"] = n.last;
    s["mean"] = sum.get<double>() / static_cast<double>(count.get<int64_t>());
  }

  json& summary_;
  std::map<std::string, std::unordered_map<std::string, Numbers>> pending_;  // by summary key, then name
};

json ParsedSummary(const api::Trial& trial) {
  json summary = json::parse(trial.summary_metrics_json, nullptr, false);
  return summary.is_object() ? summary : json::object();
}

// The summaries this thread (the metrics writer's) last wrote, parsed, by trial. A trial's next batch
// reuses its parsed summary while the stored text is still the text written (a rolled-back or
// foreign write differs, and is parsed), so a trial reporting one metric per request does not have
// its whole summary parsed again for each.
class KeptSummaries {
 public:
  json Take(const api::Trial& trial) {
    auto it = kept_.find(trial.id);
    if (it == kept_.end() || it->second.text != trial.summary_metrics_json) return ParsedSummary(trial);
    json summary = std::move(it->second.parsed);
    kept_.erase(it);
    return summary;
  }

  void Keep(int64_t trial_id, const std::string& text, json summary) {
    if (kept_.size() >= kMaxTrials) kept_.clear();  // bounded; the next batches parse again
    kept_[trial_id] = {text, std::move(summary)};
  }

 private:
  static constexpr size_t kMaxTrials = 1024;
  struct Kept {
    std::string text;
    json parsed;
  };
  std::unordered_map<int64_t, Kept> kept_;
};

thread_local KeptSummaries kept_summaries;

}  // namespace

std::optional<double> ApplyMetricsToTrial(api::Trial& trial, const api::MetricsReport& report,
                                          const std::string& searcher_metric, bool smaller_is_better) {
  json summary = ParsedSummary(trial);
  const json metrics = json::parse(report.metrics_json, nullptr, false);
  if (!metrics.is_object()) return std::nullopt;
  SummaryFolder folder(summary);
  std::optional<double> value = folder.Fold(trial, report, MetricPointsOf(metrics), searcher_metric, smaller_is_better);
  folder.Finish();
  trial.summary_metrics_json = summary.dump();
  return value;
}

bool IsProfilingGroup(const std::string& group) {
  return group == "gpu" || group == "cpu" || group == "memory" || group == "disk" || group == "network";
}

std::vector<MetricPoint> MetricPointsOf(const json& avg_metrics) {
  std::vector<MetricPoint> points;
  if (!avg_metrics.is_object()) return points;
  for (const auto& [name, value] : avg_metrics.items()) {
    MetricPoint& point = points.emplace_back();
    point.name = name;
    if (value.is_number()) {
      point.number = value.get<double>();
    } else {
      point.other_json = value.dump();
    }
  }
  return points;
}

void ApplyReportsToTrial(api::Trial& trial, const std::vector<api::MetricsReport>& reports,
                         const std::vector<std::vector<MetricPoint>>& points, const std::string& searcher_metric,
                         bool smaller_is_better) {
  json summary = kept_summaries.Take(trial);
  SummaryFolder folder(summary);
  for (size_t i = 0; i < reports.size() && i < points.size(); ++i) {
    folder.Fold(trial, reports[i], points[i], searcher_metric, smaller_is_better);
  }
  folder.Finish();
  trial.summary_metrics_json = summary.dump();
  kept_summaries.Keep(trial.id, trial.summary_metrics_json, std::move(summary));
}

std::optional<double> MetricValue(const nlohmann::json& metrics, const std::string& name) {
  auto it = metrics.find(name);
  if (it == metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace det::master

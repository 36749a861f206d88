#include "master/metric_columns.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/time_util.h"

namespace det::master {
namespace {

using nlohmann::json;

json Column(const std::string& column, const std::string& display, const char* location, const char* type) {
  json c = {{"column", column}, {"location", location}, {"type", type}};
  if (!display.empty()) c["displayName"] = display;
  return c;
}

const char* JsonColumnType(const json& value) {
  if (value.is_number()) return "COLUMN_TYPE_NUMBER";
  if (value.is_string()) return "COLUMN_TYPE_TEXT";
  if (value.is_array()) return "COLUMN_TYPE_ARRAY";
  return "COLUMN_TYPE_UNSPECIFIED";
}

// The column type of one hyperparameter: a number for int/double/log ranges, its value's type for a
// const, the values' common type for a categorical.
const char* HyperparameterType(const json& hp) {
  if (!hp.is_object() || !hp.contains("type")) return JsonColumnType(hp);
  const std::string type = hp.value("type", "");
  if (type == "int" || type == "double" || type == "log") return "COLUMN_TYPE_NUMBER";
  if (type == "const") return JsonColumnType(hp.value("val", json()));
  if (type == "categorical" && hp.contains("vals") && hp["vals"].is_array() && !hp["vals"].empty()) {
    const char* first = JsonColumnType(hp["vals"][0]);
    for (const json& v : hp["vals"]) {
      if (std::string(JsonColumnType(v)) != first) return "COLUMN_TYPE_UNSPECIFIED";
    }
    return first;
  }
  return "COLUMN_TYPE_UNSPECIFIED";
}

// hp.NAME columns of one experiment's hyperparameters, nested ones as hp.OUTER.INNER.
void AddHyperparameters(const json& hps, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (!hps.is_object()) return;
  for (const auto& [name, hp] : hps.items()) {
    std::string path = prefix.empty() ? name : absl::StrCat(prefix, ".", name);
    if (hp.is_object() && !hp.contains("type")) {
      AddHyperparameters(hp, path, out);
      continue;
    }
    const char* type = HyperparameterType(hp);
    auto [it, added] = out.emplace(path, type);
    if (!added && it->second != type) it->second = "COLUMN_TYPE_UNSPECIFIED";
  }
}

// The summary's group keys as upstream names the groups.
std::string GroupName(const std::string& key) {
  if (key == "avg_metrics") return "training";
  if (key == "validation_metrics") return "validation";
  return key;
}

const char* GroupLocation(const std::string& group) {
  if (group == "training") return "LOCATION_TYPE_TRAINING";
  if (group == "validation") return "LOCATION_TYPE_VALIDATIONS";
  return "LOCATION_TYPE_CUSTOM_METRIC";
}

const char* SummaryType(const json& summary) {
  const std::string type = summary.is_object() ? summary.value("type", "") : "";
  if (type == "number") return "COLUMN_TYPE_NUMBER";
  if (type == "string") return "COLUMN_TYPE_TEXT";
  if (type == "date") return "COLUMN_TYPE_DATE";
  if (type == "array") return "COLUMN_TYPE_ARRAY";
  return "COLUMN_TYPE_UNSPECIFIED";
}

// Calls fn(group, metric, its summary) for each metric in each trial's summary.
template <typename Fn>
void ForEachSummary(const std::vector<api::Trial>& trials, Fn fn) {
  for (const api::Trial& t : trials) {
    json summary = json::parse(t.summary_metrics_json, nullptr, /*allow_exceptions=*/false);
    if (!summary.is_object()) continue;
    for (const auto& [key, metrics] : summary.items()) {
      if (!metrics.is_object()) continue;
      for (const auto& [name, s] : metrics.items()) fn(GroupName(key), name, s);
    }
  }
}

}  // namespace

json ProjectColumnsJson(const std::vector<api::Experiment>& experiments, const std::vector<api::Trial>& trials) {
  json columns = json::array({
      Column("id", "ID", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("name", "Name", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("description", "Description", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("tags", "Tags", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_ARRAY"),
      Column("forkedFrom", "Forked", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("startTime", "Start time", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_DATE"),
      Column("duration", "Duration", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("numTrials", "Trial count", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("state", "State", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("searcherType", "Searcher", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("resourcePool", "Resource pool", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("progress", "Progress", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("checkpointSize", "Checkpoint size", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("checkpointCount", "Checkpoints", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("user", "User", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("searcherMetric", "Searcher metric", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("searcherMetricsVal", "Searcher metric value", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"),
      Column("externalExperimentId", "External experiment ID", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
      Column("externalTrialId", "External trial ID", "LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_TEXT"),
  });
  std::map<std::string, std::string> hps;
  for (const api::Experiment& e : experiments) {
    json config = json::parse(e.config_json, nullptr, /*allow_exceptions=*/false);
    if (config.is_object() && config.contains("hyperparameters")) AddHyperparameters(config["hyperparameters"], "", hps);
  }
  for (const auto& [name, type] : hps) {
    columns.push_back(Column(absl::StrCat("hp.", name), "", "LOCATION_TYPE_HYPERPARAMETERS", type.c_str()));
  }
  std::map<std::pair<std::string, std::string>, std::string> metrics;  // (group, name) -> type
  ForEachSummary(trials, [&](const std::string& group, const std::string& name, const json& s) {
    const char* type = SummaryType(s);
    auto [it, added] = metrics.emplace(std::make_pair(group, name), type);
    if (!added && it->second != type) it->second = "COLUMN_TYPE_UNSPECIFIED";
  });
  for (const auto& [key, type] : metrics) {
    columns.push_back(Column(absl::StrCat(key.first, ".", key.second), "", GroupLocation(key.first), type.c_str()));
  }
  return columns;
}

json MetricRangesJson(const std::vector<api::Trial>& trials) {
  std::map<std::string, std::pair<double, double>> ranges;
  ForEachSummary(trials, [&](const std::string& group, const std::string& name, const json& s) {
    if (!s.is_object() || s.value("type", "") != "number") return;
    const json& lo = s.contains("min") ? s["min"] : json();
    const json& hi = s.contains("max") ? s["max"] : json();
    if (!lo.is_number() || !hi.is_number()) return;
    std::string key = absl::StrCat(group, ".", name);
    auto [it, added] = ranges.emplace(key, std::make_pair(lo.get<double>(), hi.get<double>()));
    if (!added) {
      it->second.first = std::min(it->second.first, lo.get<double>());
      it->second.second = std::max(it->second.second, hi.get<double>());
    }
  });
  json out = json::array();
  for (const auto& [name, range] : ranges) {
    out.push_back({{"metricsName", name}, {"min", range.first}, {"max", range.second}});
  }
  return out;
}

absl::StatusOr<std::string> MetricGroupOf(const std::string& group, const std::string& metric_type) {
  if (!group.empty()) return group;
  if (metric_type == "METRIC_TYPE_TRAINING") return std::string("training");
  if (metric_type == "METRIC_TYPE_VALIDATION") return std::string("validation");
  if (metric_type == "METRIC_TYPE_PROFILING") return std::string("profiling");
  if (metric_type.empty() || metric_type == "METRIC_TYPE_UNSPECIFIED") {
    return absl::InvalidArgumentError("group or metricType is required: e.g. group=validation");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "metricType: \"", metric_type, "\" is not one of METRIC_TYPE_TRAINING, METRIC_TYPE_VALIDATION, "
      "METRIC_TYPE_PROFILING"));
}

std::optional<double> ReportedValue(const api::MetricsReport& report, const std::string& metric) {
  json metrics = json::parse(report.metrics_json, nullptr, /*allow_exceptions=*/false);
  if (!metrics.is_object()) return std::nullopt;
  auto it = metrics.find(metric);
  if (it == metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<int64_t> MetricBatchesOf(const std::vector<api::MetricsReport>& reports, const std::string& metric) {
  std::set<int64_t> batches;
  for (const api::MetricsReport& r : reports) {
    if (ReportedValue(r, metric)) batches.insert(r.total_batches);
  }
  return {batches.begin(), batches.end()};
}

std::optional<api::MetricsReport> SnapshotReport(const std::vector<api::MetricsReport>& reports,
                                                 const std::string& metric, int64_t batches, int64_t margin) {
  std::optional<api::MetricsReport> best;
  for (const api::MetricsReport& r : reports) {
    int64_t distance = r.total_batches > batches ? r.total_batches - batches : batches - r.total_batches;
    if (distance > margin || !ReportedValue(r, metric)) continue;
    if (!best) {
      best = r;
      continue;
    }
    int64_t best_distance =
        best->total_batches > batches ? best->total_batches - batches : batches - best->total_batches;
    if (distance < best_distance || (distance == best_distance && r.total_batches < best->total_batches)) best = r;
  }
  return best;
}

json SampleDataPoints(const std::vector<api::MetricsReport>& reports, const std::string& metric, int64_t start,
                      int64_t end, int64_t max_points) {
  std::vector<std::pair<const api::MetricsReport*, double>> in_range;
  for (const api::MetricsReport& r : reports) {
    if (r.total_batches < start || r.total_batches > end) continue;
    if (std::optional<double> v = ReportedValue(r, metric)) in_range.emplace_back(&r, *v);
  }
  std::vector<size_t> picked;
  size_t n = in_range.size();
  size_t want = max_points <= 0 ? n : std::min<size_t>(n, static_cast<size_t>(max_points));
  if (want == n) {
    for (size_t i = 0; i < n; ++i) picked.push_back(i);
  } else if (want == 1) {
    picked.push_back(n - 1);
  } else {
    for (size_t k = 0; k < want; ++k) picked.push_back(k * (n - 1) / (want - 1));  // first and last included
  }
  json points = json::array();
  for (size_t i : picked) {
    const auto& [r, v] = in_range[i];
    points.push_back({{"batches", r->total_batches}, {"time", FormatRfc3339(r->end_time)}, {"values", {{metric, v}}}});
  }
  return points;
}

std::optional<json> BatchesDelta(const json& now, const json& previous) {
  if (!previous.is_object()) return now;
  std::set<int64_t> sent;
  for (const json& b : previous.value("batches", json::array())) sent.insert(b.get<int64_t>());
  json fresh = json::array();
  for (const json& b : now.value("batches", json::array())) {
    if (!sent.contains(b.get<int64_t>())) fresh.push_back(b);
  }
  if (fresh.empty()) return std::nullopt;
  return json{{"batches", std::move(fresh)}};
}

std::optional<json> SampleDelta(const json& now, const json& previous) {
  // Per trial sent before: the last batch it was sent.
  std::map<int64_t, int64_t> sent;
  if (previous.is_object()) {
    for (const json& t : previous.value("trials", json::array())) {
      int64_t last = std::numeric_limits<int64_t>::min();
      for (const json& d : t.value("data", json::array())) last = std::max(last, d.value("batches", int64_t{0}));
      sent[t.value("trialId", int64_t{0})] = last;
    }
  }
  json trials = json::array();
  json promoted = json::array();
  std::set<int64_t> in_now;
  bool anything = !previous.is_object();
  for (const json& t : now.value("trials", json::array())) {
    int64_t id = t.value("trialId", int64_t{0});
    in_now.insert(id);
    auto it = sent.find(id);
    json data = json::array();
    for (const json& d : t.value("data", json::array())) {
      if (it == sent.end() || d.value("batches", int64_t{0}) > it->second) data.push_back(d);
    }
    if (it == sent.end()) promoted.push_back(id);
    anything = anything || it == sent.end() || !data.empty();
    trials.push_back({{"trialId", id}, {"hparams", t.value("hparams", json::object())}, {"data", std::move(data)}});
  }
  json demoted = json::array();
  for (const auto& [id, last] : sent) {
    if (!in_now.contains(id)) demoted.push_back(id);
  }
  if (!anything && demoted.empty()) return std::nullopt;
  return json{{"trials", std::move(trials)}, {"promotedTrials", std::move(promoted)}, {"demotedTrials", std::move(demoted)}};
}

}  // namespace det::master

#include "master/handlers/checkpoint_query.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/types_json.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/page.h"
#include "master/metric_summary.h"

namespace det::master {
namespace {

using nlohmann::json;
using SortBy = CheckpointListQuery::SortBy;

// checkpointv1.SortBy, by name and number; nullopt for UNSPECIFIED.
absl::StatusOr<std::optional<SortBy>> ParseSortAttr(const std::string& raw) {
  static const std::map<std::string, std::pair<int, std::optional<SortBy>>> names = {
      {"UNSPECIFIED", {0, std::nullopt}},        {"UUID", {1, SortBy::kUuid}},
      {"TRIAL_ID", {2, SortBy::kTrialId}},       {"BATCH_NUMBER", {3, SortBy::kBatchNumber}},
      {"END_TIME", {4, SortBy::kEndTime}},       {"STATE", {5, SortBy::kState}},
      {"SEARCHER_METRIC", {6, SortBy::kMetric}},
  };
  int n = -1;
  const bool numeric = absl::SimpleAtoi(raw, &n);
  absl::string_view v = raw;
  absl::ConsumePrefix(&v, "SORT_BY_");
  for (const auto& [name, entry] : names) {
    if (numeric ? entry.first == n : name == v) return entry.second;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "sortByAttr: unknown sort key \"", raw,
      "\"; use SORT_BY_UUID, SORT_BY_TRIAL_ID, SORT_BY_BATCH_NUMBER, SORT_BY_END_TIME, SORT_BY_STATE or "
      "SORT_BY_SEARCHER_METRIC"));
}

// checkpointv1.State, by name and number, as stored ("COMPLETED").
absl::StatusOr<std::string> ParseCheckpointState(const std::string& raw) {
  static const std::vector<std::string> names = {"UNSPECIFIED", "ACTIVE", "COMPLETED", "ERROR", "DELETED",
                                                 "PARTIALLY_DELETED"};
  int n = -1;
  if (absl::SimpleAtoi(raw, &n)) {
    if (n > 0 && n < static_cast<int>(names.size())) return names[n];
  } else {
    absl::string_view v = raw;
    absl::ConsumePrefix(&v, "STATE_");
    if (v != "UNSPECIFIED" && std::find(names.begin(), names.end(), v) != names.end()) return std::string(v);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "states: unknown checkpoint state \"", raw,
      "\"; use STATE_ACTIVE, STATE_COMPLETED, STATE_ERROR, STATE_DELETED or STATE_PARTIALLY_DELETED"));
}

int StateRank(const std::string& state) {
  static const std::vector<std::string> order = {"ACTIVE", "COMPLETED", "ERROR", "DELETED", "PARTIALLY_DELETED"};
  return static_cast<int>(std::find(order.begin(), order.end(), state) - order.begin());
}

// Compares two checkpoints by the query's key only: <0, 0 or >0.
int CompareBy(SortBy by, const ListedCheckpoint& a, const ListedCheckpoint& b, const std::string& metric) {
  auto three_way = [](const auto& x, const auto& y) { return x < y ? -1 : y < x ? 1 : 0; };
  const api::Checkpoint& x = a.checkpoint;
  const api::Checkpoint& y = b.checkpoint;
  switch (by) {
    case SortBy::kUuid:
      return three_way(x.uuid, y.uuid);
    case SortBy::kBatchNumber:
      return three_way(x.steps_completed, y.steps_completed);
    case SortBy::kEndTime:
      return three_way(x.report_time, y.report_time);
    case SortBy::kState:
      return three_way(StateRank(x.state), StateRank(y.state));
    case SortBy::kMetric:
      return three_way(MetricValue(a.validation_metrics, metric).value_or(0),
                       MetricValue(b.validation_metrics, metric).value_or(0));
    case SortBy::kTrialId:
      break;
  }
  return three_way(x.trial_id, y.trial_id);
}

}  // namespace

absl::StatusOr<CheckpointListQuery> ParseCheckpointListQuery(const HttpRequest& request,
                                                             const std::string& searcher_metric) {
  CheckpointListQuery q;
  std::optional<std::string> attr = request.Query("sort_by_attr");
  if (!attr) attr = request.Query("sort_by");
  std::optional<std::string> metric = request.Query("sort_by_metric");
  if (attr && metric) {
    return absl::InvalidArgumentError("sortByAttr and sortByMetric: give one of them, not both");
  }
  if (attr) {
    ASSIGN_OR_RETURN(std::optional<SortBy> by, ParseSortAttr(*attr));
    if (by) q.sort_by = *by;
    if (q.sort_by == SortBy::kMetric) q.metric = searcher_metric;
  } else if (metric) {
    if (metric->empty()) return absl::InvalidArgumentError("sortByMetric: give a validation metric's name");
    q.sort_by = SortBy::kMetric;
    q.metric = *metric;
  }
  if (request.Query("order_by")) {
    ASSIGN_OR_RETURN(bool descending, QueryOrderDescending(request));
    q.descending = descending;
  }
  for (const std::string& raw : request.QueryAll("states")) {
    ASSIGN_OR_RETURN(std::string state, ParseCheckpointState(raw));
    q.states.push_back(std::move(state));
  }
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(q.limit, QueryInt(request, "limit", 0));
  return q;
}

void FilterAndOrderCheckpoints(std::vector<ListedCheckpoint>& list, const CheckpointListQuery& query,
                               bool smaller_is_better) {
  if (!query.states.empty()) {
    std::erase_if(list, [&](const ListedCheckpoint& c) {
      return std::find(query.states.begin(), query.states.end(), c.checkpoint.state) == query.states.end();
    });
  }
  const bool by_metric = query.sort_by == SortBy::kMetric;
  const bool descending = query.descending.value_or(by_metric && !smaller_is_better);
  std::stable_sort(list.begin(), list.end(), [&](const ListedCheckpoint& a, const ListedCheckpoint& b) {
    if (by_metric) {
      const bool has_a = MetricValue(a.validation_metrics, query.metric).has_value();
      const bool has_b = MetricValue(b.validation_metrics, query.metric).has_value();
      if (has_a != has_b) return has_a;  // without the metric: last, in either order
    }
    const int order = CompareBy(query.sort_by, a, b, query.metric);
    if (order != 0) return descending ? order > 0 : order < 0;
    return a.checkpoint.trial_id != b.checkpoint.trial_id ? a.checkpoint.trial_id < b.checkpoint.trial_id
                                                          : a.checkpoint.steps_completed < b.checkpoint.steps_completed;
  });
}

json ListedCheckpointJson(const ListedCheckpoint& listed, const api::Experiment& exp, const json& config) {
  json out = api::ToJson(listed.checkpoint);
  json& training = out["training"];
  if (listed.validation_metrics.is_object()) {
    training["validationMetrics"] = {{"avgMetrics", listed.validation_metrics}, {"batchMetrics", json::array()}};
  }
  std::optional<double> value = MetricValue(listed.validation_metrics, exp.searcher_metric);
  if (value) training["searcherMetric"] = *value;  // proto3 optional: omitted when unset
  training["hparams"] = listed.hparams;
  training["experimentConfig"] = config;
  return out;
}

namespace {

json ParsedOrNull(const std::string& text) { return json::parse(text, nullptr, /*allow_exceptions=*/false); }

// Lists `checkpoints` with their trials' validations at their steps and hyperparameters, reading each
// trial once.
absl::StatusOr<std::vector<ListedCheckpoint>> WithTheirTrials(Store& store, std::vector<api::Checkpoint> checkpoints) {
  struct TrialFacts {
    std::map<int64_t, json> validation_by_step;  // avgMetrics
    json hparams;
  };
  std::map<int64_t, TrialFacts> trials;
  std::vector<ListedCheckpoint> listed;
  for (api::Checkpoint& c : checkpoints) {
    if (!trials.contains(c.trial_id)) {
      ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, store.GetMetrics(c.trial_id, "validation", {}));
      ASSIGN_OR_RETURN(api::Trial trial, store.GetTrial(c.trial_id));
      TrialFacts& facts = trials[c.trial_id];
      for (const api::MetricsReport& m : reports) facts.validation_by_step[m.total_batches] = ParsedOrNull(m.metrics_json);
      facts.hparams = ParsedOrNull(trial.hparams_json);
    }
    const TrialFacts& facts = trials[c.trial_id];
    auto at_step = facts.validation_by_step.find(c.steps_completed);
    listed.push_back({std::move(c), at_step != facts.validation_by_step.end() ? at_step->second : json(), facts.hparams});
  }
  return listed;
}

}  // namespace

absl::StatusOr<json> CheckpointResponse(Store& store, const api::Checkpoint& checkpoint) {
  ASSIGN_OR_RETURN(api::Experiment exp, store.GetExperiment(checkpoint.experiment_id));
  ASSIGN_OR_RETURN(std::vector<ListedCheckpoint> listed, WithTheirTrials(store, {checkpoint}));
  return json{{"checkpoint", ListedCheckpointJson(listed.front(), exp, ParsedOrNull(exp.config_json))}};
}

absl::StatusOr<json> CheckpointListResponse(Store& store, const HttpRequest& request, const api::Experiment& exp,
                                            std::vector<api::Checkpoint> checkpoints) {
  ASSIGN_OR_RETURN(CheckpointListQuery query, ParseCheckpointListQuery(request, exp.searcher_metric));
  ASSIGN_OR_RETURN(std::vector<ListedCheckpoint> listed, WithTheirTrials(store, std::move(checkpoints)));
  FilterAndOrderCheckpoints(listed, query, exp.smaller_is_better);
  const auto total = static_cast<int64_t>(listed.size());
  PageRange page = PageOf(total, query.offset, query.limit);
  const json config = ParsedOrNull(exp.config_json);
  json out = json::array();
  for (int64_t i = page.begin; i < page.end; ++i) out.push_back(ListedCheckpointJson(listed[i], exp, config));
  return json{{"checkpoints", std::move(out)}, {"pagination", PagePagination(query.offset, query.limit, page, total)}};
}

}  // namespace det::master

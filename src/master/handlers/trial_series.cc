// Chart data: GET /api/v1/trials/time-series (upstream's CompareTrials), downsampled metric series
// of several trials, and GET /api/v1/experiments/metrics-stream/metric-names (ExpMetricNames).
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/log_stream.h"
#include "master/handlers/path_scope.h"
#include "master/handlers/routes.h"
#include "master/metric_series.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr int64_t kDefaultMaxDatapoints = 1000;

// The group a `metricType` names (by enum name or number); "" for METRIC_TYPE_UNSPECIFIED.
absl::StatusOr<std::string> GroupOfMetricType(const std::string& type) {
  if (type.empty() || type == "METRIC_TYPE_UNSPECIFIED" || type == "0") return std::string();
  if (type == "METRIC_TYPE_TRAINING" || type == "1") return std::string("training");
  if (type == "METRIC_TYPE_VALIDATION" || type == "2") return std::string("validation");
  return absl::InvalidArgumentError(absl::StrCat(
      "metricType: \"", type, "\" is not one of METRIC_TYPE_UNSPECIFIED, METRIC_TYPE_TRAINING, METRIC_TYPE_VALIDATION"));
}

struct SeriesRequest {
  std::vector<int64_t> trial_ids;
  int64_t max_datapoints = kDefaultMaxDatapoints;
  BatchRange range;
  std::map<std::string, std::vector<std::string>> names_by_group;  // an empty list: every metric
};

absl::StatusOr<SeriesRequest> ParseSeriesRequest(const HttpRequest& req) {
  SeriesRequest out;
  ASSIGN_OR_RETURN(out.trial_ids, QueryTrialIds(req));
  ASSIGN_OR_RETURN(out.max_datapoints, QueryInt(req, "max_datapoints", kDefaultMaxDatapoints));
  if (out.max_datapoints <= 0) return absl::InvalidArgumentError("maxDatapoints must be > 0");
  ASSIGN_OR_RETURN(out.range.start, QueryInt(req, "start_batches", 0));
  ASSIGN_OR_RETURN(int64_t end, QueryInt(req, "end_batches", 0));
  if (end > 0) out.range.end = end;
  if (out.range.end && *out.range.end < out.range.start) {
    return absl::InvalidArgumentError(
        absl::StrCat("endBatches ", end, " is before startBatches ", out.range.start));
  }
  // metricIds are GROUP.NAME; metricNames belong to `group`, or the group of `metricType`, or else to
  // both training and validation.
  for (const std::string& id : req.QueryAll("metric_ids")) {
    size_t dot = id.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == id.size()) {
      return absl::InvalidArgumentError(absl::StrCat("metricIds: \"", id, "\" is not GROUP.NAME, e.g. training.loss"));
    }
    out.names_by_group[id.substr(0, dot)].push_back(id.substr(dot + 1));
  }
  std::vector<std::string> names = req.QueryAll("metric_names");
  if (!names.empty() || out.names_by_group.empty()) {
    std::string group = req.Query("group").value_or("");
    if (group.empty()) {
      ASSIGN_OR_RETURN(group, GroupOfMetricType(req.Query("metric_type").value_or("")));
    }
    for (const std::string& g : group.empty() ? std::vector<std::string>{"training", "validation"}
                                              : std::vector<std::string>{group}) {
      std::vector<std::string>& list = out.names_by_group[g];
      list.insert(list.end(), names.begin(), names.end());
    }
  }
  return out;
}

absl::StatusOr<json> CompareTrials(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(SeriesRequest request, ParseSeriesRequest(req));
  json trials = json::array();
  for (int64_t id : request.trial_ids) {
    ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
    RETURN_IF_ERROR(CheckTrialVisible(ctx.store, *req.principal, id));
    json metrics = json::array();
    for (const auto& [group, names] : request.names_by_group) {
      ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, ctx.store.GetMetrics(id, group, request.range));
      metrics.push_back(
          DownsampledMetricsJson(reports, group, names, static_cast<size_t>(request.max_datapoints)));
    }
    trials.push_back({{"trial", api::ToJson(trial)}, {"metrics", std::move(metrics)}});
  }
  return json{{"trials", std::move(trials)}};
}

// Metric names per group, from the trials' summaries (kept current at ingestion: no metrics scan).
struct MetricNames {
  std::set<std::string> searcher;
  std::set<std::pair<std::string, std::string>> by_group;  // (group, name)

  bool operator==(const MetricNames&) const = default;
};

// The summary's keys are avg_metrics (training), validation_metrics, or the group itself.
std::string GroupOfSummaryKey(const std::string& key) {
  if (key == "avg_metrics") return "training";
  if (key == "validation_metrics") return "validation";
  return key;
}

json MetricNamesJson(const MetricNames& names) {
  json training = json::array();
  json validation = json::array();
  json identifiers = json::array();
  for (const auto& [group, name] : names.by_group) {
    if (group == "training") training.push_back(name);
    if (group == "validation") validation.push_back(name);
    identifiers.push_back({{"group", group}, {"name", name}});
  }
  return {{"searcherMetrics", names.searcher},
          {"trainingMetrics", std::move(training)},
          {"validationMetrics", std::move(validation)},
          {"metricNames", std::move(identifiers)}};
}

class MetricNamesStream : public std::enable_shared_from_this<MetricNamesStream> {
 public:
  MetricNamesStream(MasterContext& ctx, std::vector<int64_t> ids, std::chrono::seconds period, ResponderPtr responder)
      : ctx_(ctx), ids_(std::move(ids)), period_(period), responder_(std::move(responder)) {}

  void Start() {
    responder_->BeginStream(200, "application/json");
    ctx_.stream_loop.Post([self = shared_from_this()] { self->Pump(); });
  }

 private:
  void Pump() {
    ContinueStream(ctx_.stream_loop, responder_, Step(), period_, [self = shared_from_this()] { self->Pump(); });
  }

  // An experiment deleted meanwhile, or unreadable, ends the stream with the error.
  absl::StatusOr<StreamStep> Step() {
    MetricNames names;
    bool all_terminal = true;
    for (int64_t id : ids_) {
      ASSIGN_OR_RETURN(api::Experiment exp, ctx_.store.GetExperiment(id));
      ASSIGN_OR_RETURN(std::vector<api::Trial> trials, ctx_.store.ListTrials(id));
      // An experiment being deleted keeps the stream open, as it always has: DELETING until its
      // record goes (the stream then ends with NotFound), DELETE_FAILED until it is deleted again.
      all_terminal = all_terminal && api::IsTerminal(exp.state) && exp.state != api::ExperimentState::kDeleting &&
                     exp.state != api::ExperimentState::kDeleteFailed;
      if (!exp.searcher_metric.empty()) names.searcher.insert(exp.searcher_metric);
      for (const api::Trial& t : trials) {
        json summary = json::parse(t.summary_metrics_json, nullptr, /*allow_exceptions=*/false);
        if (!summary.is_object()) continue;
        for (const auto& [key, metrics] : summary.items()) {
          if (!metrics.is_object()) continue;
          for (const auto& [name, stats] : metrics.items()) names.by_group.insert({GroupOfSummaryKey(key), name});
        }
      }
    }
    StreamStep step{.done = all_terminal};
    if (names != last_sent_) {
      step.chunk = DumpJson(json{{"result", MetricNamesJson(names)}}) + "\n";
      last_sent_ = std::move(names);
    }
    return step;
  }

  MasterContext& ctx_;
  std::vector<int64_t> ids_;
  std::chrono::seconds period_;
  ResponderPtr responder_;
  std::optional<MetricNames> last_sent_;
};

// GET /api/v1/experiments/metrics-stream/metric-names?ids=..&periodSeconds=..: the names at once, then
// again whenever they change, every periodSeconds (default 30), until every experiment has ended.
absl::Status StreamMetricNames(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  std::vector<int64_t> ids;
  for (const std::string& raw : req.QueryAll("ids")) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(raw, &id) || id <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("ids: \"", raw, "\" is not an experiment id"));
    }
    ids.push_back(id);
  }
  if (ids.empty()) return absl::InvalidArgumentError("ids: at least one experiment id is required");
  for (int64_t id : ids) {
    RETURN_IF_ERROR(ctx.store.GetExperiment(id).status());
    RETURN_IF_ERROR(CheckExperimentVisible(ctx.store, *req.principal, id));
  }
  ASSIGN_OR_RETURN(int64_t period, QueryInt(req, "period_seconds", 30));
  if (period <= 0) return absl::InvalidArgumentError("periodSeconds must be > 0");
  std::make_shared<MetricNamesStream>(ctx, std::move(ids), std::chrono::seconds(period), r)->Start();
  return absl::OkStatus();
}

}  // namespace

void RegisterTrialSeriesRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/trials/time-series", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CompareTrials(ctx, req)); });
  router.Add("GET", "/api/v1/experiments/metrics-stream/metric-names", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, StreamMetricNames(ctx, req, r)); });
}

}  // namespace det::master

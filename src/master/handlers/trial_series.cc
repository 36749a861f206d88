// GET /api/v1/trials/time-series (upstream's CompareTrials): downsampled metric series of several
// trials for charts.
#include <map>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
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

}  // namespace

void RegisterTrialSeriesRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/trials/time-series", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CompareTrials(ctx, req)); });
}

}  // namespace det::master

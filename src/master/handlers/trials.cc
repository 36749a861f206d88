#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/checkpoint_query.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/log_stream.h"
#include "master/handlers/path_scope.h"
#include "master/handlers/routes.h"
#include "master/handlers/task_access.h"
#include "master/handlers/page.h"
#include "master/metric_report_reader.h"
#include "master/metric_summary.h"
#include "master/trial_workloads.h"
#include "master/warm_start.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr size_t kMaxReportsPerBatch = 1000;

// POST /api/v1/trials/{trial_id}/metrics (one report) or .../metrics/batch (`batch`: several): hands
// the trial's reports to the group commit, all or none; once they are committed, feeds the
// validations to the searcher and replies. The body is read first, so a malformed report is a 400
// that names the field.
absl::Status ReportMetrics(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r, bool batch) {
  ASSIGN_OR_RETURN(int64_t path_id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(std::vector<ReadReport> read, ReadMetricReports(req.body, path_id, batch, kMaxReportsPerBatch));
  ASSIGN_OR_RETURN(TrialFacts trial, ctx.trial_facts.TrialReportedBy(path_id, req.principal->allocation_id));
  TrialReports part;
  std::vector<std::vector<MetricPoint>> points;
  part.reports.reserve(read.size());
  points.reserve(read.size());
  for (ReadReport& one : read) {
    part.reports.push_back(std::move(one.report));
    points.push_back(std::move(one.avg_metrics));
  }
  part.update_summary = [searcher = trial.searcher, points = std::move(points)](
                            api::Trial& t, const std::vector<api::MetricsReport>& reports) {
    ApplyReportsToTrial(t, reports, points, searcher.name, searcher.smaller_is_better);
  };
  const int64_t trial_id = part.reports.front().trial_id;
  std::vector<std::string> validations;
  for (const api::MetricsReport& report : part.reports) {
    if (report.group == "validation") validations.push_back(report.metrics_json);
  }
  ctx.metrics_writer.Add(std::move(part), ReplyWith(r, [&cluster = ctx.cluster, trial_id,
                                                         validations = std::move(validations)](
                                                            const std::vector<int64_t>&) {
                           for (const std::string& metrics : validations) cluster.ReportValidation(trial_id, metrics);
                           return json::object();
                         }));
  return absl::OkStatus();
}

// GET /api/v1/trials/metrics/{trial_metrics,training_metrics,validation_metrics}: one streamed message.
absl::StatusOr<HttpResponse> QueryMetrics(MasterContext& ctx, const HttpRequest& req, const std::string& fixed_group) {
  ASSIGN_OR_RETURN(std::vector<int64_t> ids, QueryTrialIds(req));
  std::string group = fixed_group.empty() ? req.Query("group").value_or("") : fixed_group;
  if (group.empty()) return absl::InvalidArgumentError("group is required, e.g. training or validation");
  // Messages of at most 1,000 reports each, like upstream's; the reports are written as text.
  constexpr size_t kReportsPerMessage = 1000;
  constexpr char kMessageStart[] = R"({"result":{"metrics":[)";
  constexpr char kMessageEnd[] = "]}}\n";
  std::string body;
  size_t in_message = 0;
  for (int64_t id : ids) {
    RETURN_IF_ERROR(ctx.store.GetTrial(id).status());
    RETURN_IF_ERROR(CheckTrialVisible(ctx.store, *req.principal, id));
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> list, ctx.store.GetMetrics(id, group, BatchRange{}));
    for (const api::MetricsReport& m : list) {
      body += in_message == 0 ? kMessageStart : ",";
      api::AppendJson(body, m);
      if (++in_message == kReportsPerMessage) {
        body += kMessageEnd;
        in_message = 0;
      }
    }
  }
  if (in_message > 0 || body.empty()) absl::StrAppend(&body, body.empty() ? kMessageStart : "", kMessageEnd);
  return JsonResponse(200, std::move(body));
}

absl::StatusOr<WorkloadFilter> ParseWorkloadFilter(const std::string& raw) {
  if (raw.empty() || raw == "FILTER_OPTION_UNSPECIFIED" || raw == "0") return WorkloadFilter::kAll;
  if (raw == "FILTER_OPTION_CHECKPOINT" || raw == "1") return WorkloadFilter::kCheckpoint;
  if (raw == "FILTER_OPTION_VALIDATION" || raw == "2") return WorkloadFilter::kValidation;
  if (raw == "FILTER_OPTION_CHECKPOINT_OR_VALIDATION" || raw == "3") return WorkloadFilter::kCheckpointOrValidation;
  return absl::InvalidArgumentError(absl::StrCat(
      "filter: \"", raw, "\" is not one of FILTER_OPTION_UNSPECIFIED, FILTER_OPTION_CHECKPOINT, "
      "FILTER_OPTION_VALIDATION, FILTER_OPTION_CHECKPOINT_OR_VALIDATION"));
}

// GET /api/v1/trials/{trial_id}/workloads (GetTrialWorkloads).
absl::StatusOr<json> GetTrialWorkloads(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  WorkloadQuery query;
  ASSIGN_OR_RETURN(query.filter, ParseWorkloadFilter(req.Query("filter").value_or("")));
  ASSIGN_OR_RETURN(query.descending, QueryOrderDescending(req));
  // grpc-gateway takes a field by its proto name or its JSON name; upstream's bindings send the latter.
  query.sort_key = req.Query("sortKey").value_or(req.Query("sort_key").value_or(""));
  query.with_batch_metrics = QueryBool(req, "includeBatchMetrics") || QueryBool(req, "include_batch_metrics");
  ASSIGN_OR_RETURN(int64_t offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(int64_t limit, QueryInt(req, "limit", 0));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  ASSIGN_OR_RETURN(std::vector<api::MetricsReport> training, ctx.store.GetMetrics(id, "training", BatchRange{}));
  ASSIGN_OR_RETURN(std::vector<api::MetricsReport> validation, ctx.store.GetMetrics(id, "validation", BatchRange{}));
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> checkpoints, ctx.store.ListCheckpoints(trial.experiment_id));
  std::erase_if(checkpoints, [id](const api::Checkpoint& c) { return c.trial_id != id; });
  std::vector<json> workloads = TrialWorkloads(training, validation, checkpoints, query);
  int64_t total = static_cast<int64_t>(workloads.size());
  PageRange range = PageOf(total, offset, limit);
  json page = json::array();
  for (int64_t i = range.begin; i < range.end; ++i) page.push_back(std::move(workloads[i]));
  return json{{"workloads", std::move(page)}, {"pagination", PagePagination(offset, limit, range, total)}};
}

std::function<bool()> TrialIsTerminal(MasterContext& ctx, int64_t trial_id) {
  return [&ctx, trial_id] {
    absl::StatusOr<api::Trial> t = ctx.store.GetTrial(trial_id);
    return !t.ok() || api::IsTerminal(t->state);
  };
}

absl::StatusOr<json> GetTrial(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  ASSIGN_OR_RETURN(api::Experiment exp, ctx.store.GetExperiment(trial.experiment_id));
  return json{{"trial", TrialJson(trial, TrialsWarmStartCheckpoint(ctx.store, ctx.store, exp))}};
}

// POST /api/v1/trials/{id}/kill: the cluster kills the trial and replies {}.
absl::Status KillTrial(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  if (!req.principal->allocation_id.empty()) return absl::PermissionDeniedError("tasks cannot kill trials");
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, trial.experiment_id, rbac::Permission::kUpdateExperiment).status());
  ctx.cluster.KillTrial(id, ReplyWith(r));
  return absl::OkStatus();
}

// GET /api/v1/trials/{id}/logs and .../logs/fields: NDJSON streams, which answer.
absl::Status StreamTrialLogs(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  ASSIGN_OR_RETURN(LogStreamOptions options, LogStreamOptionsFromRequest(req, trial.task_id, id));
  StreamTaskLogs(ctx, std::move(options), TrialIsTerminal(ctx, id), r);
  return absl::OkStatus();
}

absl::Status StreamTrialLogFields(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  StreamTaskLogFields(ctx, req, trial.task_id, /*with_allocations=*/false, TrialIsTerminal(ctx, id), r);
  return absl::OkStatus();
}

}  // namespace

void RegisterTrialRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/trials/metrics/trial_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyResponse(r, QueryMetrics(ctx, req, "")); });
  router.Add("GET", "/api/v1/trials/metrics/training_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyResponse(r, QueryMetrics(ctx, req, "training")); });
  router.Add("GET", "/api/v1/trials/metrics/validation_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyResponse(r, QueryMetrics(ctx, req, "validation")); });

  // GetTrialCheckpoints: the experiment's listing, of this trial's checkpoints.
  router.Add("GET", "/api/v1/trials/{trial_id}/checkpoints", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, [&]() -> absl::StatusOr<json> {
                 ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
                 ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
                 ASSIGN_OR_RETURN(api::Experiment exp, ctx.store.GetExperiment(trial.experiment_id));
                 ASSIGN_OR_RETURN(std::vector<api::Checkpoint> checkpoints, ctx.store.ListCheckpoints(exp.id));
                 std::erase_if(checkpoints, [id](const api::Checkpoint& c) { return c.trial_id != id; });
                 return CheckpointListResponse(ctx.store, req, exp, std::move(checkpoints));
               }());
             });

  router.Add("GET", "/api/v1/trials/{trial_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetTrial(ctx, req)); });
  router.Add("POST", "/api/v1/trials/{trial_id}/kill", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, KillTrial(ctx, req, r)); });

  router.Add("GET", "/api/v1/trials/{trial_id}/workloads", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetTrialWorkloads(ctx, req)); });

  router.Add("POST", "/api/v1/trials/{trial_id}/metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportMetrics(ctx, req, r, /*batch=*/false)); });
  // Ours, not upstream's: the harness sends the reports queued while it was sending the last ones in one
  // request, stored in one transaction.
  router.Add("POST", "/api/v1/trials/{trial_id}/metrics/batch", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportMetrics(ctx, req, r, /*batch=*/true)); });

  router.Add("GET", "/api/v1/trials/{trial_id}/logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, StreamTrialLogs(ctx, req, r)); });
  router.Add("GET", "/api/v1/trials/{trial_id}/logs/fields", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, StreamTrialLogFields(ctx, req, r)); });
}

}  // namespace det::master

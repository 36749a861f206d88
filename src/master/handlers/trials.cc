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
void ReportMetrics(MasterContext& ctx, HttpRequest& req, ResponderPtr r, bool batch) {
  absl::StatusOr<TrialReports> parsed = [&]() -> absl::StatusOr<TrialReports> {
    ASSIGN_OR_RETURN(int64_t trial_id, PathId(req, "trial_id"));
    ASSIGN_OR_RETURN(std::vector<ReadReport> read, ReadMetricReports(req.body, trial_id, batch, kMaxReportsPerBatch));
    ASSIGN_OR_RETURN(TrialFacts trial, ctx.trial_facts.TrialReportedBy(trial_id, req.principal->allocation_id));
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
    return part;
  }();
  if (!parsed.ok()) return ReplyError(r, parsed.status());
  const int64_t trial_id = parsed->reports.front().trial_id;
  std::vector<std::string> validations;
  for (const api::MetricsReport& report : parsed->reports) {
    if (report.group == "validation") validations.push_back(report.metrics_json);
  }
  ctx.metrics_writer.Add(std::move(*parsed), [&cluster = ctx.cluster, r, trial_id, validations = std::move(validations)](
                                                 absl::StatusOr<std::vector<int64_t>> ids) {
    if (!ids.ok()) return ReplyError(r, ids.status());
    for (const std::string& metrics : validations) cluster.ReportValidation(trial_id, metrics);
    ReplyJson(r, json::object());
  });
}

// GET /api/v1/trials/metrics/{trial_metrics,training_metrics,validation_metrics}: one streamed message.
void QueryMetrics(MasterContext& ctx, HttpRequest& req, ResponderPtr r, const std::string& fixed_group) {
  absl::StatusOr<std::vector<int64_t>> ids = QueryTrialIds(req);
  if (!ids.ok()) return ReplyError(r, ids.status());
  std::string group = fixed_group.empty() ? req.Query("group").value_or("") : fixed_group;
  if (group.empty()) return ReplyError(r, absl::InvalidArgumentError("group is required, e.g. training or validation"));
  // Messages of at most 1,000 reports each, like upstream's; the reports are written as text.
  constexpr size_t kReportsPerMessage = 1000;
  constexpr char kMessageStart[] = R"({"result":{"metrics":[)";
  constexpr char kMessageEnd[] = "]}}\n";
  std::string body;
  size_t in_message = 0;
  for (int64_t id : *ids) {
    absl::StatusOr<api::Trial> trial = ctx.store.GetTrial(id);
    if (!trial.ok()) return ReplyError(r, trial.status());
    absl::StatusOr<std::vector<api::MetricsReport>> list = ctx.store.GetMetrics(id, group, BatchRange{});
    if (!list.ok()) return ReplyError(r, list.status());
    for (const api::MetricsReport& m : *list) {
      body += in_message == 0 ? kMessageStart : ",";
      api::AppendJson(body, m);
      if (++in_message == kReportsPerMessage) {
        body += kMessageEnd;
        in_message = 0;
      }
    }
  }
  if (in_message > 0 || body.empty()) absl::StrAppend(&body, body.empty() ? kMessageStart : "", kMessageEnd);
  r->Send(JsonResponse(200, std::move(body)));
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

}  // namespace

void RegisterTrialRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/trials/metrics/trial_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { QueryMetrics(ctx, req, r, ""); });
  router.Add("GET", "/api/v1/trials/metrics/training_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { QueryMetrics(ctx, req, r, "training"); });
  router.Add("GET", "/api/v1/trials/metrics/validation_metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { QueryMetrics(ctx, req, r, "validation"); });

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

  router.Add("GET", "/api/v1/trials/{trial_id}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    absl::StatusOr<int64_t> id = PathId(req, "trial_id");
    if (!id.ok()) return ReplyError(r, id.status());
    absl::StatusOr<api::Trial> trial = ctx.store.GetTrial(*id);
    if (!trial.ok()) return ReplyError(r, trial.status());
    absl::StatusOr<api::Experiment> exp = ctx.store.GetExperiment(trial->experiment_id);
    if (!exp.ok()) return ReplyError(r, exp.status());
    ReplyJson(r, {{"trial", TrialJson(*trial, TrialsWarmStartCheckpoint(ctx.store, ctx.store, *exp))}});
  });

  router.Add("POST", "/api/v1/trials/{trial_id}/kill", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    if (!req.principal->allocation_id.empty()) {
      return ReplyError(r, absl::PermissionDeniedError("tasks cannot kill trials"));
    }
    absl::StatusOr<int64_t> id = PathId(req, "trial_id");
    if (!id.ok()) return ReplyError(r, id.status());
    absl::StatusOr<api::Trial> trial = ctx.store.GetTrial(*id);
    if (!trial.ok()) return ReplyError(r, trial.status());
    if (absl::Status st = ExperimentForChange(ctx.store, req, trial->experiment_id).status(); !st.ok()) {
      return ReplyError(r, st);
    }
    ctx.cluster.KillTrial(*id, [r](absl::Status st) {
      if (!st.ok()) return ReplyError(r, st);
      ReplyJson(r, json::object());
    });
  });

  router.Add("GET", "/api/v1/trials/{trial_id}/workloads", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetTrialWorkloads(ctx, req)); });

  router.Add("POST", "/api/v1/trials/{trial_id}/metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReportMetrics(ctx, req, r, /*batch=*/false); });
  // Ours, not upstream's: the harness sends the reports queued while it was sending the last ones in one
  // request, stored in one transaction.
  router.Add("POST", "/api/v1/trials/{trial_id}/metrics/batch", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReportMetrics(ctx, req, r, /*batch=*/true); });

  router.Add("GET", "/api/v1/trials/{trial_id}/logs", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    absl::StatusOr<int64_t> id = PathId(req, "trial_id");
    if (!id.ok()) return ReplyError(r, id.status());
    absl::StatusOr<api::Trial> trial = ctx.store.GetTrial(*id);
    if (!trial.ok()) return ReplyError(r, trial.status());
    absl::StatusOr<LogStreamOptions> options = LogStreamOptionsFromRequest(req, trial->task_id, *id);
    if (!options.ok()) return ReplyError(r, options.status());
    StreamTaskLogs(ctx, *options, TrialIsTerminal(ctx, *id), r);
  });

  router.Add("GET", "/api/v1/trials/{trial_id}/logs/fields", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               absl::StatusOr<int64_t> id = PathId(req, "trial_id");
               if (!id.ok()) return ReplyError(r, id.status());
               absl::StatusOr<api::Trial> trial = ctx.store.GetTrial(*id);
               if (!trial.ok()) return ReplyError(r, trial.status());
               StreamTaskLogFields(ctx, req, trial->task_id, /*with_allocations=*/false, TrialIsTerminal(ctx, *id), r);
             });
}

}  // namespace det::master

// What a running trial reports besides metrics: progress, early exit, status text; and the experiment's
// best validation so far (core.train.get_experiment_best_validation).
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/experiment_rules.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/task_access.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr const char* kEarlyExitReasons[] = {"EXITED_REASON_UNSPECIFIED", "EXITED_REASON_INVALID_HP",
                                             "EXITED_REASON_INIT_INVALID_HP"};

// What a running trial reports: its id and the body, from the task that runs it.
struct TrialReport {
  int64_t trial_id = 0;
  json body;
};

absl::StatusOr<TrialReport> ReadTrialReport(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  RETURN_IF_ERROR(ctx.store.GetTrial(id).status());
  RETURN_IF_ERROR(CheckTaskOwnsTrial(ctx.trial_facts, req, id));
  return TrialReport{.trial_id = id, .body = std::move(body)};
}

// POST .../progress, .../early_exit and .../runner/metadata: the cluster records them and replies {}.
absl::Status ReportProgress(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(TrialReport in, ReadTrialReport(ctx, req));
  const json* p = api::FindField(in.body, "progress");
  if (p == nullptr || !p->is_number() || p->get<double>() < 0 || p->get<double>() > 1) {
    return absl::InvalidArgumentError("progress must be a number between 0 and 1");
  }
  ctx.cluster.ReportProgress(in.trial_id, p->get<double>(), ReplyWith(r));
  return absl::OkStatus();
}

absl::Status ReportEarlyExit(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(TrialReport in, ReadTrialReport(ctx, req));
  const json* early = api::FindField(in.body, "early_exit");
  std::string reason = api::StringField(early != nullptr ? *early : in.body, "reason");
  if (std::find(std::begin(kEarlyExitReasons), std::end(kEarlyExitReasons), reason) == std::end(kEarlyExitReasons)) {
    return absl::InvalidArgumentError(absl::StrCat("reason \"", reason,
                                                   "\" is not one of EXITED_REASON_UNSPECIFIED, "
                                                   "EXITED_REASON_INVALID_HP, EXITED_REASON_INIT_INVALID_HP"));
  }
  ctx.cluster.ReportEarlyExit(in.trial_id, reason, ReplyWith(r));
  return absl::OkStatus();
}

absl::Status ReportRunnerMetadata(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  ASSIGN_OR_RETURN(TrialReport in, ReadTrialReport(ctx, req));
  const json* md = api::FindField(in.body, "metadata");
  std::string state = api::StringField(md != nullptr ? *md : in.body, "state");
  ctx.cluster.SetRunnerState(in.trial_id, state, ReplyWith(r));
  return absl::OkStatus();
}

// GET /api/v1/experiments/{id}/searcher/best_searcher_validation_metric.
absl::StatusOr<json> BestSearcherValidation(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(api::Experiment exp, ctx.store.GetExperiment(id));
  ASSIGN_OR_RETURN(std::vector<api::Trial> trials, ctx.store.ListTrials(id));
  ASSIGN_OR_RETURN(double best, BestSearcherMetric(id, trials, exp.smaller_is_better));
  return json{{"metric", best}};
}

// POST /api/v1/runs/start (upstream's RunPrepareForReporting, which upstream's Core API calls before it
// reports): the trial (a "run") names the checkpoint storage it will write to; the reply is that
// storage's id, which its checkpoints then carry (storageId is a proto3 optional: absent without one).
absl::StatusOr<json> PrepareRunForReporting(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* run = api::FindField(body, "run_id");
  if (run == nullptr || run->is_null()) return absl::InvalidArgumentError("runId is required: the trial's id");
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*run, "runId"));
  RETURN_IF_ERROR(ctx.store.GetTrial(id).status());
  RETURN_IF_ERROR(CheckTaskOwnsTrial(ctx.trial_facts, req, id));
  const json* storage = api::FindField(body, "checkpoint_storage");
  if (storage == nullptr || storage->is_null()) return json::object();
  if (!storage->is_object()) return absl::InvalidArgumentError("checkpointStorage must be a JSON object");
  ASSIGN_OR_RETURN(int64_t storage_id, ctx.store.CheckpointStorageId(storage->dump()));
  return json{{"storageId", storage_id}};
}

}  // namespace

void RegisterTrialReportRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/runs/start", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PrepareRunForReporting(ctx, req)); });
  router.Add("POST", "/api/v1/trials/{trial_id}/progress", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportProgress(ctx, req, r)); });
  router.Add("POST", "/api/v1/trials/{trial_id}/early_exit", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportEarlyExit(ctx, req, r)); });
  router.Add("POST", "/api/v1/trials/{trial_id}/runner/metadata", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, ReportRunnerMetadata(ctx, req, r)); });
  router.Add("GET", "/api/v1/experiments/{experiment_id}/searcher/best_searcher_validation_metric",
             Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, BestSearcherValidation(ctx, req)); });
}

}  // namespace det::master

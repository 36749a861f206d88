// Log retention (upstream's log_retention_days): PUT /api/v1/experiments/{id}/retain_logs and
// PUT /api/v1/trials/{id}/retain_logs {numDays} set how many days the logs are kept after the trials
// end (-1: forever), and PUT /api/v1/projects/{id}/experiments/retain_logs {experimentIds, numDays} for
// several experiments at once; GET /api/v1/trials/{id}/remaining_log_retention_days says how many are
// left. The master deletes expired logs on its retention_policy.schedule (log_retention.h).
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/project_bulk.h"
#include "master/handlers/routes.h"
#include "master/log_retention.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<int> NumDays(const json& body) {
  const json* days = api::FindField(body, "num_days");
  if (days == nullptr || days->is_null()) {
    return absl::InvalidArgumentError("numDays is required: days to keep the logs after the trials end, -1 forever");
  }
  ASSIGN_OR_RETURN(int64_t n, api::ReadInt64(*days, "numDays"));
  if (n < -1 || n > 32767) {
    return absl::InvalidArgumentError(
        absl::StrCat("numDays: must be between -1 (forever) and 32767 days, got ", n));
  }
  return static_cast<int>(n);
}

absl::StatusOr<json> RetainExperimentLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int days, NumDays(body));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperimentMetadata).status());
  RETURN_IF_ERROR(ctx.store.SetExperimentLogRetentionDays(id, days));
  return json::object();
}

absl::StatusOr<json> RetainTrialLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int days, NumDays(body));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, trial.experiment_id, rbac::Permission::kUpdateExperimentMetadata).status());
  RETURN_IF_ERROR(ctx.store.SetTrialLogRetentionDays(id, days));
  return json::object();
}

// Upstream's bulk action, within the project: one result {error, id} per experiment.
absl::StatusOr<json> RetainProjectExperimentsLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t project_id, PathId(req, "project_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int days, NumDays(body));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> visible,
                   VisibleWorkspaces(*req.principal, rbac::Permission::kViewExperimentMetadata));
  ASSIGN_OR_RETURN(std::vector<BulkTarget> targets, ProjectBulkTargets(ctx.store, project_id, body, visible));
  return RunBulk(std::move(targets), [&](int64_t id) {
    RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kUpdateExperimentMetadata).status());
    return ctx.store.SetExperimentLogRetentionDays(id, days);
  });
}

absl::StatusOr<json> RemainingLogRetentionDays(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  return json{{"remainingDays", RemainingRetentionDays(trial, ctx.config.retention_policy.log_retention_days,
                                                       std::chrono::system_clock::now())}};
}

}  // namespace

void RegisterLogRetentionRoutes(Router& router, MasterContext& ctx) {
  router.Add("PUT", "/api/v1/experiments/{experiment_id}/retain_logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RetainExperimentLogs(ctx, req)); });
  router.Add("PUT", "/api/v1/projects/{project_id}/experiments/retain_logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RetainProjectExperimentsLogs(ctx, req)); });
  router.Add("PUT", "/api/v1/trials/{trial_id}/retain_logs", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RetainTrialLogs(ctx, req)); });
  router.Add("GET", "/api/v1/trials/{trial_id}/remaining_log_retention_days", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RemainingLogRetentionDays(ctx, req)); });
}

}  // namespace det::master

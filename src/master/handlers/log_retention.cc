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
#include "master/handlers/routes.h"
#include "master/log_retention.h"

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
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id).status());
  RETURN_IF_ERROR(ctx.store.SetExperimentLogRetentionDays(id, days));
  return json::object();
}

absl::StatusOr<json> RetainTrialLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int days, NumDays(body));
  ASSIGN_OR_RETURN(api::Trial trial, ctx.store.GetTrial(id));
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, trial.experiment_id).status());
  RETURN_IF_ERROR(ctx.store.SetTrialLogRetentionDays(id, days));
  return json::object();
}

// Upstream's bulk action: one result {error, id} per experiment named, "" when it was set.
absl::StatusOr<json> RetainProjectExperimentsLogs(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t project_id, PathId(req, "project_id"));
  if (project_id != 1) {
    return absl::NotFoundError(
        absl::StrCat("project ", project_id, " not found (the only project is 1, Uncategorized)"));
  }
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int days, NumDays(body));
  if (const json* filters = api::FindField(body, "filters"); filters != nullptr && !filters->is_null()) {
    return absl::UnimplementedError("filters: name the experiments with experimentIds instead");
  }
  const json* ids = api::FindField(body, "experiment_ids");
  if (ids == nullptr || !ids->is_array() || ids->empty()) {
    return absl::InvalidArgumentError("experimentIds: name at least one experiment");
  }
  json results = json::array();
  for (const json& raw : *ids) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, "experimentIds[]"));
    absl::Status st = ExperimentForChange(ctx.store, req, id).status();
    if (st.ok()) st = ctx.store.SetExperimentLogRetentionDays(id, days);
    results.push_back({{"error", st.ok() ? "" : std::string(st.message())}, {"id", id}});
  }
  return json{{"results", std::move(results)}};
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

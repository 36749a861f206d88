// Moving experiments between projects: POST /api/v1/experiments/{id}/move {destinationProjectId}, and
// in bulk within one project, POST /api/v1/projects/{id}/experiments/move {experimentIds | filters,
// destinationProjectId} (project_bulk.h). The rules are experiment_placement.h's.
#include <nlohmann/json.hpp>

#include "api/wire.h"
#include "common/status_macros.h"
#include "master/experiment_placement.h"
#include "master/handlers/experiment_access.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/project_bulk.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<int64_t> DestinationProject(const json& body) {
  const json* destination = api::FindField(body, "destination_project_id");
  if (destination == nullptr) return absl::InvalidArgumentError("destinationProjectId is required");
  return api::ReadInt64(*destination, "destinationProjectId");
}

absl::Status MoveOne(MasterContext& ctx, const HttpRequest& req, int64_t id, int64_t destination) {
  RETURN_IF_ERROR(ExperimentForChange(ctx.store, req, id, rbac::Permission::kDeleteExperiment).status());
  return MoveExperimentChecked(ctx.store, id, destination);
}

absl::StatusOr<json> MoveExperiment(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "experiment_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int64_t destination, DestinationProject(body));
  RETURN_IF_ERROR(MoveOne(ctx, req, id, destination));
  return json::object();
}

absl::StatusOr<json> MoveProjectExperiments(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t project_id, PathId(req, "project_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(int64_t destination, DestinationProject(body));
  RETURN_IF_ERROR(ctx.store.GetProject(destination).status());
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> visible,
                   VisibleWorkspaces(*req.principal, rbac::Permission::kViewExperimentMetadata));
  ASSIGN_OR_RETURN(std::vector<BulkTarget> targets, ProjectBulkTargets(ctx.store, project_id, body, visible));
  return RunBulk(std::move(targets), [&](int64_t id) { return MoveOne(ctx, req, id, destination); });
}

}  // namespace

void RegisterExperimentMoveRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/experiments/{experiment_id}/move", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, MoveExperiment(ctx, req)); });
  router.Add("POST", "/api/v1/projects/{project_id}/experiments/move", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, MoveProjectExperiments(ctx, req)); });
}

}  // namespace det::master

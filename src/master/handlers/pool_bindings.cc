// Resource pools bound to workspaces (upstream's): GET, POST (bind), PUT (overwrite) and DELETE
// (unbind) /api/v1/resource-pools/{resource_pool_name}/workspace-bindings, with {workspaceIds,
// workspaceNames}. Binding is the cluster admin's; the rules are master/pool_bindings.h's.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/pool_bindings.h"
#include "master/task/authz.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

// The workspaces a body names by `workspaceIds` and `workspaceNames`; each must exist.
absl::StatusOr<std::vector<int64_t>> NamedWorkspaces(Store& store, const json& body) {
  std::vector<int64_t> ids;
  if (const json* given = api::FindField(body, "workspace_ids"); given != nullptr && given->is_array()) {
    for (const json& raw : *given) {
      ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, "workspaceIds"));
      RETURN_IF_ERROR(store.GetWorkspace(id, 0).status());
      ids.push_back(id);
    }
  }
  if (const json* names = api::FindField(body, "workspace_names"); names != nullptr && names->is_array()) {
    for (const json& name : *names) {
      if (!name.is_string()) return absl::InvalidArgumentError("workspaceNames must be a list of names");
      ASSIGN_OR_RETURN(Workspace workspace, WorkspaceByName(store, name.get<std::string>()));
      ids.push_back(workspace.id);
    }
  }
  if (ids.empty()) return absl::InvalidArgumentError("name at least one workspace: workspaceIds or workspaceNames");
  return ids;
}

absl::StatusOr<json> ListBindings(MasterContext& ctx, const HttpRequest& req) {
  const std::string& pool = req.path_params.at("resource_pool_name");
  std::vector<std::string> pools = PoolNames(ctx.config);
  if (std::find(pools.begin(), pools.end(), pool) == pools.end()) {
    return absl::NotFoundError(absl::StrCat("resource pool \"", pool, "\" not found"));
  }
  ASSIGN_OR_RETURN(std::vector<PoolBinding> bindings, ctx.store.ListPoolBindings());
  json ids = json::array();
  for (const PoolBinding& b : bindings) {
    if (b.pool == pool) ids.push_back(b.workspace_id);
  }
  const auto n = static_cast<int64_t>(ids.size());
  return json{{"workspaceIds", ids}, {"pagination", Pagination(0, 0, n, n)}};
}

enum class Change { kBind, kOverwrite, kUnbind };

absl::StatusOr<json> ChangeBindings(MasterContext& ctx, const HttpRequest& req, Change change) {
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kModifyRpWorkspaceBindings,
                                              "bind resource pools"));
  const std::string& pool = req.path_params.at("resource_pool_name");
  const auto& rm = ctx.config.resource_manager;
  RETURN_IF_ERROR(CheckBindable(pool, PoolNames(ctx.config), {rm.default_compute_resource_pool, rm.default_aux_resource_pool}));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::vector<int64_t> workspaces, NamedWorkspaces(ctx.store, body));
  if (change == Change::kUnbind) {
    RETURN_IF_ERROR(ctx.store.UnbindPool(pool, workspaces));
  } else {
    RETURN_IF_ERROR(ctx.store.BindPool(pool, workspaces, change == Change::kOverwrite));
  }
  return json::object();
}

}  // namespace

void RegisterPoolBindingRoutes(Router& router, MasterContext& ctx) {
  const char* path = "/api/v1/resource-pools/{resource_pool_name}/workspace-bindings";
  router.Add("GET", path, Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListBindings(ctx, req)); });
  for (auto [method, change] : {std::pair{"POST", Change::kBind}, std::pair{"PUT", Change::kOverwrite},
                                std::pair{"DELETE", Change::kUnbind}}) {
    router.Add(method, path, Access::kAuthenticated,
               [&ctx, change = change](HttpRequest& req, ResponderPtr r) { Reply(r, ChangeBindings(ctx, req, change)); });
  }
}

}  // namespace det::master

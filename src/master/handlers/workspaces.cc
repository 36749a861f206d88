// Workspaces (upstream's workspace/v1): /api/v1/workspaces and /api/v1/workspaces/{id} (get, create,
// patch, delete, archive, unarchive, pin, unpin), their projects (list, create) and their pools.
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/random_id.h"
#include "master/db/store.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/agent_user_group.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/workspace_common.h"
#include "master/pool_bindings.h"
#include "master/task/authz.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

// `users` and `userIds`, as both lists take them.
absl::Status ReadUserFilters(const HttpRequest& req, std::vector<std::string>& usernames,
                             std::vector<int64_t>& user_ids) {
  usernames = req.QueryAll("users");
  for (const std::string& id : req.QueryAll("user_ids")) {
    ASSIGN_OR_RETURN(int64_t parsed, api::ReadInt64(json(id), "userIds"));
    user_ids.push_back(parsed);
  }
  return absl::OkStatus();
}

absl::Status ReadPage(const HttpRequest& req, int64_t& offset, int64_t& limit) {
  ASSIGN_OR_RETURN(offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(limit, QueryInt(req, "limit", 0));
  if (offset < 0) return absl::InvalidArgumentError("offset must be >= 0");
  if (limit < 0) return absl::InvalidArgumentError("limit must be >= 0");
  return absl::OkStatus();
}

absl::StatusOr<json> ListWorkspaces(MasterContext& ctx, const HttpRequest& req) {
  WorkspaceFilter f;
  f.name = req.Query("name").value_or("");
  // Upstream's `nameCaseSensitive` is a string: the name, matched exactly. A boolean word beside
  // `name` is read as the older "match `name` exactly" flag.
  if (std::optional<std::string> exact = req.Query("name_case_sensitive"); exact && !exact->empty()) {
    const std::string word = absl::AsciiStrToLower(*exact);
    const bool flag = !f.name.empty() && (word == "true" || word == "1" || word == "false" || word == "0");
    if (flag) {
      f.name_case_sensitive = word == "true" || word == "1";
    } else if (!f.name.empty() && absl::AsciiStrToLower(f.name) != absl::AsciiStrToLower(*exact)) {
      return json{{"workspaces", json::array()}, {"pagination", Pagination(0, 0, 0, 0)}};  // no name is both
    } else {
      f.name = *exact;
      f.name_case_sensitive = true;
    }
  }
  ASSIGN_OR_RETURN(f.archived, QueryOptionalBool(req, "archived"));
  RETURN_IF_ERROR(ReadUserFilters(req, f.usernames, f.user_ids));
  std::string sort = req.Query("sort_by").value_or("SORT_BY_UNSPECIFIED");
  if (sort == "SORT_BY_NAME" || sort == "2") {
    f.by_name = true;
  } else if (sort != "SORT_BY_UNSPECIFIED" && sort != "SORT_BY_ID" && sort != "0" && sort != "1") {
    return absl::InvalidArgumentError(
        absl::StrCat("sortBy must be SORT_BY_UNSPECIFIED, SORT_BY_ID or SORT_BY_NAME, got \"", sort, "\""));
  }
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(req));
  RETURN_IF_ERROR(ReadPage(req, f.offset, f.limit));
  ASSIGN_OR_RETURN(f.pinned, QueryOptionalBool(req, "pinned"));
  f.viewer_id = req.principal->user_id;
  ASSIGN_OR_RETURN(f.visible_workspaces, VisibleWorkspaces(*req.principal, rbac::Permission::kViewWorkspace));
  ASSIGN_OR_RETURN(WorkspacePage page, ctx.store.ListWorkspaces(f));
  json out = json::array();
  for (const Workspace& w : page.workspaces) out.push_back(WorkspaceJson(w));
  return json{{"workspaces", out},
              {"pagination", Pagination(f.offset, f.limit, static_cast<int64_t>(page.workspaces.size()), page.total)}};
}

absl::StatusOr<ProjectFilter::SortBy> ProjectSort(const std::string& sort) {
  using SortBy = ProjectFilter::SortBy;
  if (sort == "SORT_BY_UNSPECIFIED" || sort == "SORT_BY_CREATION_TIME" || sort == "0" || sort == "1") {
    return SortBy::kCreationTime;
  }
  if (sort == "SORT_BY_LAST_EXPERIMENT_START_TIME" || sort == "2") return SortBy::kLastExperimentStartTime;
  if (sort == "SORT_BY_NAME" || sort == "3") return SortBy::kName;
  if (sort == "SORT_BY_DESCRIPTION" || sort == "4") return SortBy::kDescription;
  if (sort == "SORT_BY_ID" || sort == "5") return SortBy::kId;
  return absl::InvalidArgumentError(absl::StrCat(
      "sortBy must be SORT_BY_UNSPECIFIED, SORT_BY_CREATION_TIME, SORT_BY_LAST_EXPERIMENT_START_TIME, SORT_BY_NAME, "
      "SORT_BY_DESCRIPTION or SORT_BY_ID, got \"", sort, "\""));
}

absl::StatusOr<json> ListWorkspaceProjects(MasterContext& ctx, const HttpRequest& req) {
  ProjectFilter f;
  ASSIGN_OR_RETURN(f.workspace_id, PathId(req, "id"));
  RETURN_IF_ERROR(ctx.store.GetWorkspace(f.workspace_id, 0).status());
  f.name = req.Query("name").value_or("");
  ASSIGN_OR_RETURN(f.archived, QueryOptionalBool(req, "archived"));
  RETURN_IF_ERROR(ReadUserFilters(req, f.usernames, f.user_ids));
  ASSIGN_OR_RETURN(f.sort_by, ProjectSort(req.Query("sort_by").value_or("SORT_BY_UNSPECIFIED")));
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(req));
  RETURN_IF_ERROR(ReadPage(req, f.offset, f.limit));
  ASSIGN_OR_RETURN(f.visible_workspaces, VisibleWorkspaces(*req.principal, rbac::Permission::kViewProject));
  ASSIGN_OR_RETURN(ProjectPage page, ctx.store.ListProjects(f));
  json out = json::array();
  for (const Project& p : page.projects) out.push_back(ProjectJson(p));
  return json{{"projects", out},
              {"pagination", Pagination(f.offset, f.limit, static_cast<int64_t>(page.projects.size()), page.total)}};
}

// An optional JSON object field, as text: unset when absent or null (as FindField reads it); anything
// but an object is refused.
absl::StatusOr<std::optional<std::string>> OptionalObjectText(const json& body, const char* snake_name) {
  const json* value = api::FindField(body, snake_name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(snake_name), " must be a JSON object"));
  }
  if (value->empty()) return std::string();  // {} clears it (upstream's "To remove storage config use '{}'")
  return DumpJson(*value);
}

// A pool setting must name one of the cluster's pools ("" = none).
absl::Status CheckPoolName(const MasterContext& ctx, const std::string& pool, const char* field) {
  std::vector<std::string> pools = PoolNames(ctx.config);
  if (pool.empty() || absl::c_linear_search(pools, pool)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": no resource pool is named \"", pool, "\" (the pools: ",
                                                 absl::StrJoin(pools, ", "), ")"));
}

// The settings a workspace create or PATCH body may carry; unset = not given.
absl::StatusOr<WorkspacePatch> ParseWorkspaceSettings(const MasterContext& ctx, const json& body) {
  WorkspacePatch patch;
  ASSIGN_OR_RETURN(patch.name, api::OptionalStringField(body, "name"));
  ASSIGN_OR_RETURN(patch.agent_user_group_json, AgentUserGroupField(body));
  ASSIGN_OR_RETURN(patch.checkpoint_storage_config_json, OptionalObjectText(body, "checkpoint_storage_config"));
  // PatchWorkspace names them default_{compute,aux}_resource_pool (the older names still work there).
  struct PoolField {
    const char* name;
    const char* newer_name;
    std::optional<std::string>* out;
  };
  for (const PoolField& f : {PoolField{"default_compute_pool", "default_compute_resource_pool", &patch.default_compute_pool},
                             PoolField{"default_aux_pool", "default_aux_resource_pool", &patch.default_aux_pool}}) {
    ASSIGN_OR_RETURN(*f.out, api::OptionalStringField(body, f.name));
    ASSIGN_OR_RETURN(std::optional<std::string> newer, api::OptionalStringField(body, f.newer_name));
    if (newer) *f.out = newer;
    if (*f.out) RETURN_IF_ERROR(CheckPoolName(ctx, **f.out, api::ToLowerCamel(newer ? f.newer_name : f.name).c_str()));
  }
  return patch;
}

absl::StatusOr<json> CreateWorkspace(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(WorkspacePatch settings, ParseWorkspaceSettings(ctx, body));
  Workspace w{.name = settings.name.value_or(""),
              .user_id = req.principal->user_id,
              .created_at = std::chrono::system_clock::now(),
              .agent_user_group_json = settings.agent_user_group_json.value_or(""),
              .checkpoint_storage_config_json = settings.checkpoint_storage_config_json.value_or(""),
              .default_compute_pool = settings.default_compute_pool.value_or(""),
              .default_aux_pool = settings.default_aux_pool.value_or("")};
  RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kCreateWorkspace, "create workspaces"));
  // security.authz.workspace_creator_assign_role: the creator manages what they created.
  const config::AuthzConfig& authz = ctx.config.security.authz;
  const bool creator_role = DefaultAuthz().IsRbac() && authz.workspace_creator_role_enabled;
  ASSIGN_OR_RETURN(Workspace created,
                   CreateWorkspaceChecked(ctx.store, w,
                                          creator_role ? std::optional<int32_t>(authz.workspace_creator_role_id) : std::nullopt));
  // No Kubernetes here, so no workspace is bound to a namespace; upstream always sends the map.
  return json{{"workspace", WorkspaceJson(created)}, {"namespaceBindings", json::object()}};
}

absl::StatusOr<json> PatchWorkspace(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(WorkspacePatch patch, ParseWorkspaceSettings(ctx, body));
  RETURN_IF_ERROR(WorkspaceForChange(ctx.store, *req.principal, id).status());
  ASSIGN_OR_RETURN(Workspace patched, PatchWorkspaceChecked(ctx.store, id, patch));
  return json{{"workspace", WorkspaceJson(patched)}, {"namespaceBindings", json::object()}};
}

// Its experiments go through the experiment deletion (their checkpoints with them, asynchronously),
// its live tasks are killed, and its rows go now. `completed` is false while experiments remain.
absl::StatusOr<json> DeleteWorkspace(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  RETURN_IF_ERROR(WorkspaceForChange(ctx.store, *req.principal, id).status());
  ASSIGN_OR_RETURN(std::vector<int64_t> experiments, WorkspaceDeletion(ctx.store, id));
  RETURN_IF_ERROR(DeleteExperimentsOf(ctx, experiments));
  // Its commands, notebooks, shells, TensorBoards and generic tasks are killed, as upstream's are.
  ASSIGN_OR_RETURN(std::vector<Task> live, ctx.store.ListTasks({.live_only = true, .workspace_ids = {id}}));
  for (const Task& t : live) ctx.cluster.KillTask(t.task_id, [](absl::Status) {});
  RETURN_IF_ERROR(ctx.store.DeleteWorkspace(id));
  return json{{"completed", experiments.empty()}};
}

absl::StatusOr<json> ArchiveWorkspace(MasterContext& ctx, const HttpRequest& req, bool archived) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  RETURN_IF_ERROR(WorkspaceForChange(ctx.store, *req.principal, id).status());
  RETURN_IF_ERROR(SetWorkspaceArchivedChecked(ctx.store, id, archived));
  return json::object();
}

// Pins are each user's own: anyone who can see the workspace may pin it.
absl::StatusOr<json> PinWorkspace(MasterContext& ctx, const HttpRequest& req, bool pinned) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
  RETURN_IF_ERROR(RequireUserToken(*req.principal, "pin workspaces"));
  RETURN_IF_ERROR(ctx.store.GetWorkspace(id, 0).status());
  RETURN_IF_ERROR(ctx.store.SetWorkspacePinned(id, req.principal->user_id, pinned));
  return json::object();
}

// The unbound pools and those bound to the workspace.
absl::StatusOr<json> AvailablePools(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "workspace_id"));
  RETURN_IF_ERROR(ctx.store.GetWorkspace(id, 0).status());
  ASSIGN_OR_RETURN(std::vector<PoolBinding> bindings, ctx.store.ListPoolBindings());
  json names = PoolsAvailableTo(PoolNames(ctx.config), bindings, id);
  const auto n = static_cast<int64_t>(names.size());
  return json{{"resourcePools", names}, {"pagination", Pagination(0, 0, n, n)}};
}

absl::StatusOr<json> CreateProject(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t workspace_id, PathId(req, "id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  if (const json* in_body = api::FindField(body, "workspace_id")) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*in_body, "workspaceId"));
    if (id != 0 && id != workspace_id) {
      return absl::InvalidArgumentError(
          absl::StrCat("workspaceId ", id, " in the body differs from workspace ", workspace_id, " in the path"));
    }
  }
  Project p{.name = api::StringField(body, "name"),
            .workspace_id = workspace_id,
            .description = api::StringField(body, "description"),
            .user_id = req.principal->user_id,
            .created_at = std::chrono::system_clock::now()};
  ASSIGN_OR_RETURN(Project created, CreateProjectChecked(ctx.store, std::move(p), api::StringField(body, "key"),
                                                         [] { return RandomHex(1)[0]; }));
  return json{{"project", ProjectJson(created)}};
}

}  // namespace

void RegisterWorkspaceRoutes(Router& router, MasterContext& ctx) {
  auto add = [&router, &ctx](const char* method, const char* path,
                             std::function<absl::StatusOr<json>(MasterContext&, const HttpRequest&)> handler) {
    router.Add(method, path, Access::kAuthenticated,
               [&ctx, handler](HttpRequest& req, ResponderPtr r) { Reply(r, handler(ctx, req)); });
  };
  add("POST", "/api/v1/workspaces", CreateWorkspace);
  add("GET", "/api/v1/workspaces", ListWorkspaces);
  add("GET", "/api/v1/workspaces/{id}", [](MasterContext& ctx, const HttpRequest& req) -> absl::StatusOr<json> {
    ASSIGN_OR_RETURN(int64_t id, PathId(req, "id"));
    ASSIGN_OR_RETURN(Workspace w, ctx.store.GetWorkspace(id, req.principal->user_id));
    return json{{"workspace", WorkspaceJson(w)}};
  });
  add("PATCH", "/api/v1/workspaces/{id}", PatchWorkspace);
  add("DELETE", "/api/v1/workspaces/{id}", DeleteWorkspace);
  for (bool on : {true, false}) {
    add("POST", on ? "/api/v1/workspaces/{id}/archive" : "/api/v1/workspaces/{id}/unarchive",
        [on](MasterContext& ctx, const HttpRequest& req) { return ArchiveWorkspace(ctx, req, on); });
    add("POST", on ? "/api/v1/workspaces/{id}/pin" : "/api/v1/workspaces/{id}/unpin",
        [on](MasterContext& ctx, const HttpRequest& req) { return PinWorkspace(ctx, req, on); });
  }
  add("GET", "/api/v1/workspaces/{id}/projects", ListWorkspaceProjects);
  add("POST", "/api/v1/workspaces/{id}/projects", CreateProject);
  add("GET", "/api/v1/workspaces/{workspace_id}/available-resource-pools", AvailablePools);
}

}  // namespace det::master

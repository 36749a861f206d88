// Workspaces and projects (upstream's workspace/v1 and project/v1): /api/v1/workspaces,
// /api/v1/workspaces/{id}, /api/v1/workspaces/{id}/projects and /api/v1/projects/{id}.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/random_id.h"
#include "master/db/store.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

// What a workspace or project's `state` says when it is not being deleted.
constexpr char kStateUnspecified[] = "WORKSPACE_STATE_UNSPECIFIED";

json WorkspaceJson(const Workspace& w) {
  json out = {{"id", w.id},
              {"name", w.name},
              {"archived", w.archived},
              {"username", w.username},
              {"immutable", w.immutable},
              {"numProjects", w.num_projects},
              {"pinned", false},
              {"userId", w.user_id},
              {"numExperiments", w.num_experiments},
              {"state", kStateUnspecified},
              {"errorMessage", ""},
              {"defaultComputePool", w.default_compute_pool},
              {"defaultAuxPool", w.default_aux_pool}};
  if (absl::StatusOr<json> group = ParseJson(w.agent_user_group_json); group.ok()) out["agentUserGroup"] = *group;
  if (absl::StatusOr<json> storage = ParseJson(w.checkpoint_storage_config_json); storage.ok()) {
    out["checkpointStorageConfig"] = *storage;
  }
  return out;
}

json ProjectJson(const Project& p) {
  absl::StatusOr<json> notes = ParseJson(p.notes_json);
  json out = {{"id", p.id},
              {"name", p.name},
              {"workspaceId", p.workspace_id},
              {"workspaceName", p.workspace_name},
              {"description", p.description},
              {"notes", notes.ok() ? *notes : json::array()},
              {"numExperiments", p.num_experiments},
              {"numActiveExperiments", p.num_active_experiments},
              {"archived", p.archived},
              {"username", p.username},
              {"immutable", p.immutable},
              {"userId", p.user_id},
              {"state", kStateUnspecified},
              {"errorMessage", ""},
              {"key", p.key}};
  if (p.last_experiment_started_at) out["lastExperimentStartedAt"] = FormatRfc3339(*p.last_experiment_started_at);
  return out;
}

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
  f.name_case_sensitive = QueryBool(req, "name_case_sensitive");
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
  ASSIGN_OR_RETURN(std::optional<bool> pinned, QueryOptionalBool(req, "pinned"));
  WorkspacePage page;
  if (pinned != true) {  // nobody has pinned a workspace yet
    ASSIGN_OR_RETURN(page, ctx.store.ListWorkspaces(f));
  }
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
  ASSIGN_OR_RETURN(ProjectPage page, ctx.store.ListProjects(f));
  json out = json::array();
  for (const Project& p : page.projects) out.push_back(ProjectJson(p));
  return json{{"projects", out},
              {"pagination", Pagination(f.offset, f.limit, static_cast<int64_t>(page.projects.size()), page.total)}};
}

// An optional JSON object field, as text ("" when absent); anything but an object is refused.
absl::StatusOr<std::string> OptionalObjectText(const json& body, const char* snake_name) {
  const json* value = api::FindField(body, snake_name);
  if (value == nullptr) return std::string();
  if (!value->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(snake_name), " must be a JSON object"));
  }
  return DumpJson(*value);
}

absl::StatusOr<json> CreateWorkspace(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  Workspace w{.name = api::StringField(body, "name"),
              .user_id = req.principal->user_id,
              .created_at = std::chrono::system_clock::now(),
              .default_compute_pool = api::StringField(body, "default_compute_pool"),
              .default_aux_pool = api::StringField(body, "default_aux_pool")};
  RETURN_IF_ERROR(CheckWorkspaceOrProjectName(w.name, "name"));
  ASSIGN_OR_RETURN(w.agent_user_group_json, OptionalObjectText(body, "agent_user_group"));
  ASSIGN_OR_RETURN(w.checkpoint_storage_config_json, OptionalObjectText(body, "checkpoint_storage_config"));
  ASSIGN_OR_RETURN(Workspace created, ctx.store.InsertWorkspace(w));
  return json{{"workspace", WorkspaceJson(created)}};
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
  router.Add("POST", "/api/v1/workspaces", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CreateWorkspace(ctx, req)); });
  router.Add("POST", "/api/v1/workspaces/{id}/projects", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, CreateProject(ctx, req)); });
  router.Add("GET", "/api/v1/workspaces", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListWorkspaces(ctx, req)); });
  router.Add("GET", "/api/v1/workspaces/{id}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    absl::StatusOr<int64_t> id = PathId(req, "id");
    if (!id.ok()) return ReplyError(r, id.status());
    absl::StatusOr<Workspace> w = ctx.store.GetWorkspace(*id, req.principal->user_id);
    Reply(r, w.ok() ? absl::StatusOr<json>(json{{"workspace", WorkspaceJson(*w)}}) : w.status());
  });
  router.Add("GET", "/api/v1/workspaces/{id}/projects", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListWorkspaceProjects(ctx, req)); });
  router.Add("GET", "/api/v1/projects/{id}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    absl::StatusOr<int64_t> id = PathId(req, "id");
    if (!id.ok()) return ReplyError(r, id.status());
    absl::StatusOr<Project> p = ctx.store.GetProject(*id);
    Reply(r, p.ok() ? absl::StatusOr<json>(json{{"project", ProjectJson(*p)}}) : p.status());
  });
}

}  // namespace det::master

// Roles and their assignments (upstream's): GET /api/v1/permissions/summary, POST /api/v1/roles/search,
// /roles/search/by-ids, /roles/search/by-assignability, GET /roles/search/by-user/{userId},
// /roles/search/by-group/{groupId}, /roles/workspace/{workspaceId}, and POST /roles/add-assignments and
// /roles/remove-assignments. The roles are the built-in ones (master/rbac/roles.h); a role given to a user
// is given to their personal group. Assigning needs PERMISSION_TYPE_ASSIGN_ROLES where the role is given
// (cluster-wide, or in the workspace); every assignment of a request is checked before any is made.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/group_json.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/rbac/roles.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;
using rbac::Assignment;
using rbac::Role;

// {role: {roleId}, scopeWorkspaceId?, scopeCluster?} read into an assignment of `group`.
absl::StatusOr<Assignment> ReadRoleAssignment(Store& store, const json& ra, int64_t group, const std::string& where) {
  if (!ra.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ".roleAssignment: required, an object"));
  const json* role = api::FindField(ra, "role");
  const json* role_id = role != nullptr && role->is_object() ? api::FindField(*role, "role_id") : nullptr;
  if (role_id == nullptr) return absl::InvalidArgumentError(absl::StrCat(where, ".roleAssignment.role.roleId: required"));
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*role_id, "roleId"));
  const Role* known = rbac::FindRole(static_cast<int32_t>(id));
  if (known == nullptr) {
    return absl::NotFoundError(absl::StrCat("role ", id, " not found (the roles are 1 to ",
                                            rbac::BuiltInRoles().size(), "; see POST /api/v1/roles/search)"));
  }
  Assignment a{.group_id = group, .role_id = known->id};
  const json* ws = api::FindField(ra, "scope_workspace_id");
  if (ws != nullptr && !ws->is_null()) {
    ASSIGN_OR_RETURN(int64_t workspace, api::ReadInt64(*ws, "scopeWorkspaceId"));
    RETURN_IF_ERROR(store.GetWorkspace(workspace, 0).status());
    if (known->GlobalOnly()) {
      return absl::InvalidArgumentError(
          absl::StrCat("role ", known->name, " can only be assigned cluster-wide, not in workspace ", workspace));
    }
    a.workspace_id = workspace;
  }
  return a;
}

// The assignments of an AssignRoles / RemoveAssignments body, checked: groups, users, roles and
// workspaces exist, and the caller may assign each.
absl::StatusOr<std::vector<Assignment>> ReadAssignments(Store& store, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  std::vector<Assignment> out;
  if (const json* groups = api::FindField(body, "group_role_assignments"); groups != nullptr && groups->is_array()) {
    for (const json& g : *groups) {
      const json* id = g.is_object() ? api::FindField(g, "group_id") : nullptr;
      if (id == nullptr) return absl::InvalidArgumentError("groupRoleAssignments[].groupId: required");
      ASSIGN_OR_RETURN(int64_t group, api::ReadInt64(*id, "groupId"));
      ASSIGN_OR_RETURN(Group found, store.GetGroup(group));
      if (found.personal_of) return absl::NotFoundError(absl::StrCat("group ", group, " not found"));
      const json* ra = api::FindField(g, "role_assignment");
      ASSIGN_OR_RETURN(Assignment a, ReadRoleAssignment(store, ra ? *ra : json(), group, "groupRoleAssignments[]"));
      out.push_back(a);
    }
  }
  if (const json* users = api::FindField(body, "user_role_assignments"); users != nullptr && users->is_array()) {
    for (const json& u : *users) {
      const json* id = u.is_object() ? api::FindField(u, "user_id") : nullptr;
      if (id == nullptr) return absl::InvalidArgumentError("userRoleAssignments[].userId: required");
      ASSIGN_OR_RETURN(int64_t user, api::ReadInt64(*id, "userId"));
      RETURN_IF_ERROR(store.GetUser(user).status());
      ASSIGN_OR_RETURN(int64_t personal, store.PersonalGroupOf(user));
      const json* ra = api::FindField(u, "role_assignment");
      ASSIGN_OR_RETURN(Assignment a, ReadRoleAssignment(store, ra ? *ra : json(), personal, "userRoleAssignments[]"));
      out.push_back(a);
    }
  }
  if (out.empty()) return absl::InvalidArgumentError("name at least one groupRoleAssignments or userRoleAssignments entry");
  for (const Assignment& a : out) {
    if (a.workspace_id) {
      RETURN_IF_ERROR(DefaultAuthz().Check(*req.principal, rbac::Permission::kAssignRoles,
                                           {"workspace", std::to_string(*a.workspace_id), 0, a.workspace_id}));
    } else {
      RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kAssignRoles, "assign roles"));
    }
  }
  return out;
}

json RoleAssignmentJson(const Role& role, const Assignment& a) {
  json out = {{"role", rbac::RoleJson(role)}, {"scopeCluster", !a.workspace_id}};
  if (a.workspace_id) out["scopeWorkspaceId"] = *a.workspace_id;
  return out;
}

// upstream's RoleWithAssignments for each role that `assignments` name, in role order: group assignments,
// and those of personal groups as the user's.
absl::StatusOr<json> RolesWithAssignments(Store& store, const std::vector<Assignment>& assignments) {
  std::map<int32_t, json> by_role;
  for (const Assignment& a : assignments) {
    const Role* role = rbac::FindRole(a.role_id);
    if (role == nullptr) continue;
    json& entry = by_role[role->id];
    if (entry.is_null()) {
      entry = {{"role", rbac::RoleJson(*role)}, {"groupRoleAssignments", json::array()},
               {"userRoleAssignments", json::array()}};
    }
    ASSIGN_OR_RETURN(Group g, store.GetGroup(a.group_id));
    if (g.personal_of) {
      entry["userRoleAssignments"].push_back({{"userId", *g.personal_of}, {"roleAssignment", RoleAssignmentJson(*role, a)}});
    } else {
      entry["groupRoleAssignments"].push_back({{"groupId", g.id}, {"roleAssignment", RoleAssignmentJson(*role, a)}});
    }
  }
  json out = json::array();
  for (auto& [id, entry] : by_role) out.push_back(std::move(entry));
  return out;
}

// upstream's RoleAssignmentSummary per role: {roleId, scopeWorkspaceIds, scopeCluster}.
json Summaries(const std::vector<Assignment>& assignments) {
  std::map<int32_t, json> by_role;
  for (const Assignment& a : assignments) {
    json& s = by_role[a.role_id];
    if (s.is_null()) s = {{"roleId", a.role_id}, {"scopeWorkspaceIds", json::array()}, {"scopeCluster", false}};
    if (a.workspace_id) {
      s["scopeWorkspaceIds"].push_back(*a.workspace_id);
    } else {
      s["scopeCluster"] = true;
    }
  }
  json out = json::array();
  for (auto& [id, s] : by_role) out.push_back(std::move(s));
  return out;
}

json RolesJson(const std::set<int32_t>& ids) {
  json roles = json::array();
  for (const Role& r : rbac::BuiltInRoles()) {
    if (ids.contains(r.id)) roles.push_back(rbac::RoleJson(r));
  }
  return roles;
}

// {roles, pagination} of the built-in roles from body's offset and limit, those assignable in a workspace
// only when `assignable_in_workspace`.
absl::StatusOr<json> RolePage(const HttpRequest& req, bool only_workspace_assignable) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  int64_t offset = 0, limit = 0;
  for (auto [field, out] : {std::pair{"offset", &offset}, std::pair{"limit", &limit}}) {
    if (const json* v = api::FindField(body, field); v != nullptr && !v->is_null()) {
      ASSIGN_OR_RETURN(*out, api::ReadInt64(*v, field));
      if (*out < 0) return absl::InvalidArgumentError(absl::StrCat(field, ": must be >= 0, got ", *out));
    }
  }
  const json* ws = api::FindField(body, "workspace_id");
  const bool in_workspace = only_workspace_assignable && ws != nullptr && !ws->is_null();
  std::vector<const Role*> roles;
  for (const Role& r : rbac::BuiltInRoles()) {
    if (!in_workspace || !r.GlobalOnly()) roles.push_back(&r);
  }
  json page = json::array();
  for (size_t i = static_cast<size_t>(offset); i < roles.size() && (limit == 0 || page.size() < static_cast<size_t>(limit)); ++i) {
    page.push_back(rbac::RoleJson(*roles[i]));
  }
  const auto total = static_cast<int64_t>(roles.size());
  return json{{"roles", page}, {"pagination", Pagination(offset, limit, static_cast<int64_t>(page.size()), total)}};
}

absl::StatusOr<json> PermissionsSummary(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(std::vector<Assignment> mine, ctx.store.ListUserRoleAssignments(req.principal->user_id));
  std::set<int32_t> ids;
  for (const Assignment& a : mine) ids.insert(a.role_id);
  return json{{"roles", RolesJson(ids)}, {"assignments", Summaries(mine)}};
}

absl::StatusOr<json> RolesByIds(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* ids = api::FindField(body, "role_ids");
  json out = json::array();
  if (ids == nullptr || !ids->is_array()) return json{{"roles", out}};
  for (const json& raw : *ids) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(raw, "roleIds"));
    const Role* role = rbac::FindRole(static_cast<int32_t>(id));
    if (role == nullptr) return absl::NotFoundError(absl::StrCat("role ", id, " not found"));
    ASSIGN_OR_RETURN(std::vector<Assignment> assigned, ctx.store.ListRoleAssignments({.role_id = role->id}));
    ASSIGN_OR_RETURN(json with, RolesWithAssignments(ctx.store, assigned));
    out.push_back(with.empty() ? json{{"role", rbac::RoleJson(*role)},
                                      {"groupRoleAssignments", json::array()},
                                      {"userRoleAssignments", json::array()}}
                               : with[0]);
  }
  return json{{"roles", out}};
}

absl::StatusOr<json> RolesOfUser(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t user, PathId(req, "user_id"));
  RETURN_IF_ERROR(ctx.store.GetUser(user).status());
  ASSIGN_OR_RETURN(std::vector<Assignment> assigned, ctx.store.ListUserRoleAssignments(user));
  ASSIGN_OR_RETURN(json roles, RolesWithAssignments(ctx.store, assigned));
  return json{{"roles", roles}};
}

absl::StatusOr<json> RolesOfGroup(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t group, PathId(req, "group_id"));
  RETURN_IF_ERROR(ctx.store.GetGroup(group).status());
  ASSIGN_OR_RETURN(std::vector<Assignment> assigned, ctx.store.ListRoleAssignments({.group_id = group}));
  std::set<int32_t> ids;
  for (const Assignment& a : assigned) ids.insert(a.role_id);
  return json{{"roles", RolesJson(ids)}, {"assignments", Summaries(assigned)}};
}

absl::StatusOr<json> WorkspaceAssignments(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t workspace, PathId(req, "workspace_id"));
  RETURN_IF_ERROR(ctx.store.GetWorkspace(workspace, 0).status());
  ASSIGN_OR_RETURN(std::vector<Assignment> assigned, ctx.store.ListRoleAssignments({.workspace_id = workspace}));
  json groups = json::array(), users = json::array();
  std::set<int64_t> seen;
  for (const Assignment& a : assigned) {
    if (!seen.insert(a.group_id).second) continue;
    ASSIGN_OR_RETURN(Group g, ctx.store.GetGroup(a.group_id));
    if (g.personal_of) {
      if (absl::StatusOr<api::User> u = ctx.store.GetUser(*g.personal_of); u.ok()) users.push_back(api::ToJson(*u));
    } else {
      ASSIGN_OR_RETURN(json details, GroupDetailsJson(ctx.store, g));
      groups.push_back(std::move(details));
    }
  }
  ASSIGN_OR_RETURN(json roles, RolesWithAssignments(ctx.store, assigned));
  return json{{"groups", groups}, {"usersAssignedDirectly", users}, {"assignments", roles}};
}

}  // namespace

void RegisterRoleRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/permissions/summary", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PermissionsSummary(ctx, req)); });
  router.Add("POST", "/api/v1/roles/search", Access::kAuthenticated,
             [](HttpRequest& req, ResponderPtr r) { Reply(r, RolePage(req, false)); });
  router.Add("POST", "/api/v1/roles/search/by-assignability", Access::kAuthenticated,
             [](HttpRequest& req, ResponderPtr r) { Reply(r, RolePage(req, true)); });
  router.Add("POST", "/api/v1/roles/search/by-ids", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RolesByIds(ctx, req)); });
  router.Add("GET", "/api/v1/roles/search/by-user/{user_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RolesOfUser(ctx, req)); });
  router.Add("GET", "/api/v1/roles/search/by-group/{group_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, RolesOfGroup(ctx, req)); });
  router.Add("GET", "/api/v1/roles/workspace/{workspace_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, WorkspaceAssignments(ctx, req)); });
  router.Add("POST", "/api/v1/roles/add-assignments", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(std::vector<Assignment> given, ReadAssignments(ctx.store, req));
      RETURN_IF_ERROR(ctx.store.AddRoleAssignments(given));
      return json::object();
    }());
  });
  router.Add("POST", "/api/v1/roles/remove-assignments", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, [&]() -> absl::StatusOr<json> {
                 ASSIGN_OR_RETURN(std::vector<Assignment> given, ReadAssignments(ctx.store, req));
                 RETURN_IF_ERROR(ctx.store.RemoveRoleAssignments(given));
                 return json::object();
               }());
             });
}

}  // namespace det::master

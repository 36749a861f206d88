#include "cli/rbac_ops.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/format.h"
#include "cli/rbac_names.h"
#include "cli/session.h"
#include "cli/table.h"

namespace det::cli {
namespace {

using nlohmann::json;

constexpr char kWhat[] = "rbac";

int64_t IdOr(const json& obj, const char* key, int64_t fallback) {
  const json v = obj.is_object() ? obj.value(key, json()) : json();
  return v.is_number_integer() ? v.get<int64_t>() : fallback;
}

// `"Viewer" (ID 2)` of a role object.
std::string RoleLabel(const json& role) {
  return absl::StrCat("\"", Str(role, "name"), "\" (ID ", Cell(role.value("roleId", json())), ")");
}

// Permissions as upstream's v1PermissionHeaders table; each permission id once.
std::string PermissionTable(const json& permissions) {
  Table table({"Id", "Name", "Scopetypemask"});
  std::set<std::string> seen;
  for (const json& p : permissions) {
    if (!seen.insert(Cell(p.value("id", json()))).second) continue;
    table.AddRow({PyCell(p.value("id", json())), PyCell(p.value("name", json())),
                  PyCell(p.value("scopeTypeMask", json()))});
  }
  return table.Render();
}

// The workspace's name when `id` is one (null otherwise).
absl::StatusOr<json> WorkspaceName(NameCache& names, const json& id) {
  if (!id.is_number_integer()) return json();
  absl::StatusOr<std::string> name = names.Workspace(id.get<int64_t>());
  if (!name.ok()) return name.status();
  return json(*name);
}

// The rows of the Groupid/Userid tables of describe-role: who, where, and whether cluster-wide.
absl::StatusOr<Table> AssigneeTable(NameCache& names, const json& assignments, bool groups) {
  Table table({groups ? "Groupid" : "Userid", groups ? "Groupname" : "Username", "Workspaceid",
               "Workspacename", "Assignedglobally"});
  for (const json& a : assignments) {
    const int64_t who = IdOr(a, groups ? "groupId" : "userId", 0);
    absl::StatusOr<std::string> name = groups ? names.Group(who) : names.User(who);
    if (!name.ok()) return name.status();
    const json workspace =
        a.value("roleAssignment", json::object()).value("scopeWorkspaceId", json());
    absl::StatusOr<json> workspace_name = WorkspaceName(names, workspace);
    if (!workspace_name.ok()) return workspace_name.status();
    table.AddRow({std::to_string(who), *name, PyCell(workspace), PyCell(*workspace_name),
                  PyCell(json(!workspace.is_number_integer()))});
  }
  return table;
}

// A roles reply's roles to show in tables; nullopt when there is nothing more to show: the reply was
// printed as JSON (`as_json`), or it held no role and `none` was printed.
std::optional<json> RolesToShow(const json& resp, bool as_json, const std::string& none, std::ostream& out) {
  if (as_json) {
    out << resp.dump(2) << "\n";
    return std::nullopt;
  }
  json roles = resp.value("roles", json::array());
  if (roles.empty()) {
    out << none << "\n";
    return std::nullopt;
  }
  return roles;
}

}  // namespace

absl::StatusOr<int> MyPermissions(Session& session, bool as_json, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<json> resp = session.Get("/api/v1/permissions/summary");
  if (!resp.ok()) return resp.status();
  if (as_json) {
    out << resp->dump(2) << "\n";
    return 0;
  }
  std::map<int64_t, json> role_permissions;
  for (const json& r : resp->value("roles", json::array())) {
    role_permissions[IdOr(r, "roleId", -1)] = r.value("permissions", json::array());
  }
  std::vector<int64_t> scopes;  // 0: cluster-wide; in the order the summary names them
  std::map<int64_t, json> scope_permissions;
  auto grant = [&](int64_t scope, const json& permissions) {
    json& list = scope_permissions[scope];
    if (list.is_null()) {
      list = json::array();
      scopes.push_back(scope);
    }
    for (const json& p : permissions) list.push_back(p);
  };
  for (const json& a : resp->value("assignments", json::array())) {
    const int64_t role = IdOr(a, "roleId", -1);
    if (role < 0)
      return absl::InternalError(
          "the master's permission summary has an assignment without a roleId");
    const json permissions = role_permissions.count(role) ? role_permissions[role] : json::array();
    if (a.value("scopeCluster", false)) grant(0, permissions);
    for (const json& w : a.value("scopeWorkspaceIds", json::array()))
      grant(w.is_number_integer() ? w.get<int64_t>() : 0, permissions);
  }
  if (scopes.empty()) {
    out << "You have no permissions: no role is assigned to you or to a group of yours.\n";
    return 0;
  }
  NameCache names(session);
  for (int64_t scope : scopes) {
    if (scope == 0) {
      out << "Cluster-wide permissions:\n";
    } else {
      absl::StatusOr<std::string> name = names.Workspace(scope);
      if (!name.ok()) return name.status();
      out << "Permissions in workspace \"" << *name << "\" (ID " << scope << "):\n";
    }
    out << PermissionTable(scope_permissions[scope]) << "\n";
  }
  return 0;
}

absl::StatusOr<int> ListRoles(Session& session, bool exclude_global_roles, const PageArgs& pages,
                              bool as_json, std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  json body = json::object();
  if (exclude_global_roles) body["workspaceId"] = 1;
  absl::StatusOr<json> resp =
      PostPages(session, "/api/v1/roles/search/by-assignability", body, "roles", pages);
  if (!resp.ok()) return resp.status();
  std::optional<json> roles = RolesToShow(*resp, as_json, "No roles found.", out);
  if (!roles) return 0;
  for (const json& r : *roles) {
    out << "Role " << RoleLabel(r) << ", its permissions:\n";
    const json permissions = r.value("permissions", json());
    if (permissions.is_null()) {
      out << "(none)\n";
      continue;
    }
    out << PermissionTable(permissions) << "\n";
  }
  return 0;
}

absl::StatusOr<int> ListUsersRoles(Session& session, const std::string& username, bool as_json,
                                   std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> user = UserIdsByName(session, {username});
  if (!user.ok()) return user.status();
  absl::StatusOr<json> resp =
      session.Get(absl::StrCat("/api/v1/roles/search/by-user/", user->front()));
  if (!resp.ok()) return resp.status();
  std::optional<json> roles = RolesToShow(
      *resp, as_json, absl::StrCat("User \"", username, "\" has no roles, neither directly nor through a group."), out);
  if (!roles) return 0;
  NameCache names(session);
  Table table({"Rolename", "Roleid", "Assigneddirectlytouser", "Assignedtogroupname",
               "Assignedtogroupid", "Scopecluster", "Scopeworkspacename", "Scopeworkspaceid"});
  for (const json& r : *roles) {
    const json role = r.value("role", json::object());
    for (bool direct : {true, false}) {
      for (const json& a :
           r.value(direct ? "userRoleAssignments" : "groupRoleAssignments", json::array())) {
        const json ra = a.value("roleAssignment", json::object());
        const json workspace = ra.value("scopeWorkspaceId", json());
        absl::StatusOr<json> workspace_name = WorkspaceName(names, workspace);
        if (!workspace_name.ok()) return workspace_name.status();
        json group_id, group_name;
        if (!direct) {
          group_id = a.value("groupId", json());
          absl::StatusOr<std::string> name = names.Group(IdOr(a, "groupId", 0));
          if (!name.ok()) return name.status();
          group_name = *name;
        }
        table.AddRow({PyCell(role.value("name", json())), PyCell(role.value("roleId", json())),
                      PyCell(json(direct)), PyCell(group_name), PyCell(group_id),
                      PyCell(ra.value("scopeCluster", json())), PyCell(*workspace_name),
                      PyCell(workspace)});
      }
    }
  }
  out << table.Render();
  return 0;
}

absl::StatusOr<int> ListGroupsRoles(Session& session, const std::string& group, bool as_json,
                                    std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = GroupIdByName(session, group);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Get(absl::StrCat("/api/v1/roles/search/by-group/", *id));
  if (!resp.ok()) return resp.status();
  std::optional<json> roles = RolesToShow(*resp, as_json, absl::StrCat("User group \"", group, "\" has no roles."), out);
  if (!roles) return 0;
  NameCache names(session);
  const json assignments = resp->value("assignments", json::array());
  for (const json& r : *roles) {
    Table table({"Assignedglobally", "Workspaceid", "Workspacename"});
    for (const json& a : assignments) {
      if (IdOr(a, "roleId", -1) != IdOr(r, "roleId", -2)) continue;
      if (a.value("scopeCluster", false)) table.AddRow({"True", "N/A", "N/A"});
      for (const json& w : a.value("scopeWorkspaceIds", json::array())) {
        absl::StatusOr<json> name = WorkspaceName(names, w);
        if (!name.ok()) return name.status();
        table.AddRow({"False", PyCell(w), PyCell(*name)});
      }
    }
    out << "Role " << RoleLabel(r) << " is assigned:\n" << table.Render() << "\n";
  }
  return 0;
}

absl::StatusOr<int> DescribeRole(Session& session, const std::string& role_name, bool as_json,
                                 std::ostream& out) {
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> id = RoleIdByName(session, role_name);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Post("/api/v1/roles/search/by-ids", {{"roleIds", {*id}}});
  if (!resp.ok()) return resp.status();
  const json roles = resp->value("roles", json::array());
  if (as_json) {
    out << (roles.empty() ? json() : roles[0]).dump(2) << "\n";
    return 0;
  }
  if (roles.size() != 1)
    return absl::NotFoundError(absl::StrCat("the master has no role with ID ", *id));
  const json role = roles[0].value("role", json::object());
  out << "Role " << RoleLabel(role) << ", its permissions:\n"
      << PermissionTable(role.value("permissions", json::array())) << "\n";
  NameCache names(session);
  for (bool groups : {true, false}) {
    const json assignments =
        roles[0].value(groups ? "groupRoleAssignments" : "userRoleAssignments", json::array());
    if (assignments.empty()) {
      out << (groups ? "No user group has this role.\n" : "No user has this role directly.\n");
      continue;
    }
    absl::StatusOr<Table> table = AssigneeTable(names, assignments, groups);
    if (!table.ok()) return table.status();
    out << (groups ? "User groups with this role:\n" : "Users with this role directly:\n")
        << table->Render() << "\n";
  }
  return 0;
}

absl::StatusOr<int> ChangeRoleAssignment(Session& session, const RoleAssignmentArgs& args,
                                         bool assign, std::ostream& out) {
  if (args.user.has_value() == args.group.has_value()) {
    return absl::InvalidArgumentError(
        "give exactly one of -u/--username-to-assign and -g/--group-name-to-assign");
  }
  if (absl::Status s = RequireRbac(session, kWhat); !s.ok()) return s;
  absl::StatusOr<int64_t> role = RoleIdByName(session, args.role);
  if (!role.ok()) return role.status();
  json role_assignment = {{"role", {{"roleId", *role}}}, {"scopeWorkspaceId", nullptr}};
  if (args.workspace) {
    absl::StatusOr<int64_t> workspace = WorkspaceIdByName(session, *args.workspace);
    if (!workspace.ok()) return workspace.status();
    role_assignment["scopeWorkspaceId"] = *workspace;
  }
  json body = {{"userRoleAssignments", json::array()}, {"groupRoleAssignments", json::array()}};
  int64_t assignee = 0;
  if (args.user) {
    absl::StatusOr<std::vector<int64_t>> user = UserIdsByName(session, {*args.user});
    if (!user.ok()) return user.status();
    assignee = user->front();
    body["userRoleAssignments"].push_back(
        {{"userId", assignee}, {"roleAssignment", role_assignment}});
  } else {
    absl::StatusOr<int64_t> group = GroupIdByName(session, *args.group);
    if (!group.ok()) return group.status();
    assignee = *group;
    body["groupRoleAssignments"].push_back(
        {{"groupId", assignee}, {"roleAssignment", role_assignment}});
  }
  absl::StatusOr<json> resp = session.Post(
      assign ? "/api/v1/roles/add-assignments" : "/api/v1/roles/remove-assignments", body);
  if (!resp.ok()) return resp.status();
  out << (assign ? "Assigned role \"" : "Removed role \"") << args.role << "\" (ID " << *role << ")"
      << (assign ? " to " : " from ") << (args.user ? "user \"" : "user group \"")
      << (args.user ? *args.user : *args.group) << "\" (ID " << assignee << ")"
      << (args.workspace ? absl::StrCat(" in workspace \"", *args.workspace, "\"")
                         : std::string(" cluster-wide"))
      << ".\n";
  return 0;
}

}  // namespace det::cli

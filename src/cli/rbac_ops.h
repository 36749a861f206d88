#pragma once
// `det rbac my-permissions|list-roles|list-users-roles|list-groups-roles|describe-role|assign-role|
// unassign-role`: roles and their assignments (GET /api/v1/permissions/summary, POST
// /api/v1/roles/search*, GET /roles/search/by-user|by-group, POST
// /roles/add-assignments|remove-assignments), with users, groups, roles and workspaces named as
// upstream's CLI names them. Every command first checks that the master has RBAC on (RequireRbac).
// Tables have upstream's columns.
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/paging.h"

namespace det::cli {

class Session;

// `det rbac my-permissions [--json]`: per scope (cluster-wide, or a workspace; in the order the
// summary names them) the permissions the logged-in user's roles give there (columns Id, Name,
// Scopetypemask); --json prints the summary.
absl::StatusOr<int> MyPermissions(Session& session, bool json, std::ostream& out);

// `det rbac list-roles [--exclude-global-roles] [--limit N] [--offset N] [--pages all|1] [--json]`:
// each role and its permissions (POST /api/v1/roles/search/by-assignability; excluding the global
// roles asks for those assignable in workspace 1, as upstream does).
absl::StatusOr<int> ListRoles(Session& session, bool exclude_global_roles, const PageArgs& pages,
                              bool json, std::ostream& out);

// `det rbac list-users-roles USER [--json]`: the user's roles, given directly or through a group
// (columns Rolename, Roleid, Assigneddirectlytouser, Assignedtogroupname, Assignedtogroupid,
// Scopecluster, Scopeworkspacename, Scopeworkspaceid).
absl::StatusOr<int> ListUsersRoles(Session& session, const std::string& username, bool json,
                                   std::ostream& out);

// `det rbac list-groups-roles GROUP [--json]`: each role of the group and where (columns
// Assignedglobally, Workspaceid, Workspacename).
absl::StatusOr<int> ListGroupsRoles(Session& session, const std::string& group, bool json,
                                    std::ostream& out);

// `det rbac describe-role ROLE [--json]`: the role's permissions, then the groups and the users it
// is given to; --json prints the role with its assignments (POST /api/v1/roles/search/by-ids).
absl::StatusOr<int> DescribeRole(Session& session, const std::string& role, bool json,
                                 std::ostream& out);

// `det rbac assign-role|unassign-role ROLE [-w WORKSPACE] (-u USER | -g GROUP)`: exactly one of
// user and group (InvalidArgument otherwise, before anything is asked of the master); no workspace
// means cluster-wide.
struct RoleAssignmentArgs {
  std::string role;
  std::optional<std::string> workspace;
  std::optional<std::string> user;
  std::optional<std::string> group;
};
absl::StatusOr<int> ChangeRoleAssignment(Session& session, const RoleAssignmentArgs& args,
                                         bool assign, std::ostream& out);

}  // namespace det::cli

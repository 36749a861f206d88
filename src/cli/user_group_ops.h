#pragma once
// `det user-group create|delete|list|describe|add-user|remove-user|change-name`: user groups
// (POST /api/v1/groups, /groups/search, GET|PUT|DELETE /groups/{id}), named on the command line as
// upstream's CLI names them. Every command first checks that the master has RBAC on (RequireRbac).
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/paging.h"

namespace det::cli {

class Session;

// `det user-group create NAME [--add-user U]...`: the group, with those users in it.
absl::StatusOr<int> CreateGroup(Session& session, const std::string& name,
                                const std::vector<std::string>& add_users, std::ostream& out);

// `det user-group list [--groups-user-belongs-to U] [--limit N] [--offset N] [--pages all|1]
// [--json]`: columns Groupid, Name, Nummembers; --json prints the reply (every page's groups in
// it).
struct ListGroupsArgs {
  std::string member;  // "" = every group
  PageArgs pages;
  bool json = false;
};
absl::StatusOr<int> ListGroups(Session& session, const ListGroupsArgs& args, std::ostream& out);

// `det user-group describe NAME [--json]`: the group's id and name, then its users (columns Id,
// Username, Displayname, Admin, Active, Agentusergroup, Modifiedat); --json prints the group.
absl::StatusOr<int> DescribeGroup(Session& session, const std::string& name, bool json,
                                  std::ostream& out);

// `det user-group add-user|remove-user GROUP u1,u2`: PUT /api/v1/groups/{id} with addUsers or
// removeUsers. `usernames` is upstream's comma-separated list.
absl::StatusOr<int> ChangeGroupMembers(Session& session, const std::string& group,
                                       const std::string& usernames, bool add, std::ostream& out);

// `det user-group change-name OLD NEW`: PUT /api/v1/groups/{id} {name}.
absl::StatusOr<int> RenameGroup(Session& session, const std::string& old_name,
                                const std::string& new_name, std::ostream& out);

// `det user-group delete NAME`: DELETE /api/v1/groups/{id} (the command asks first unless --yes).
absl::StatusOr<int> DeleteGroup(Session& session, const std::string& name, std::ostream& out);

}  // namespace det::cli

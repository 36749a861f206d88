#pragma once
// The name lookups `det rbac` and `det user-group` share: users, groups, roles and workspaces are
// named on the command line, as upstream's CLI does, and become ids here; ids in the master's
// replies become names again for the tables. Failures name what was not found.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// GET /api/v1/master: FailedPrecondition unless the master reports rbacEnabled (its configuration
// has security.authz.type: rbac, or rbac_ui_enabled). `what` is the command group, for the message.
absl::Status RequireRbac(Session& session, const std::string& what);

// The ids of `usernames`, in order (GET /api/v1/users/{name}/by-username); NotFound naming every
// username that has no user.
absl::StatusOr<std::vector<int64_t>> UserIdsByName(Session& session,
                                                   const std::vector<std::string>& usernames);

// The id of the user group named exactly `name` (POST /api/v1/groups/search {name}); NotFound if
// none.
absl::StatusOr<int64_t> GroupIdByName(Session& session, const std::string& name);

// The id of the role named exactly `name` among the master's roles (POST /api/v1/roles/search);
// NotFound naming the roles there are.
absl::StatusOr<int64_t> RoleIdByName(Session& session, const std::string& name);

// The id of the workspace named exactly `name`; NotFound naming the workspaces there are.
absl::StatusOr<int64_t> WorkspaceIdByName(Session& session, const std::string& name);

// Names of workspaces, groups and users by id, each fetched once (GET /api/v1/workspaces/{id},
// /groups/{id}, /users/{id}). Lives for one command; not thread-safe.
class NameCache {
 public:
  explicit NameCache(Session& session) : session_(session) {}
  absl::StatusOr<std::string> Workspace(int64_t id);
  absl::StatusOr<std::string> Group(int64_t id);
  absl::StatusOr<std::string> User(int64_t id);

 private:
  absl::StatusOr<std::string> Lookup(const std::string& path, const char* object,
                                     const char* field);
  Session& session_;
  std::map<std::string, std::string> names_;  // by path
};

}  // namespace det::cli

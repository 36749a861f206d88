#pragma once
// The one permission rule of RBAC: a user holds a permission in a workspace when some group they
// belong to (their personal group included) is assigned a role that grants it, at that workspace's
// scope or at cluster scope. Pure: the caller reads the user's assignments from the store.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "master/rbac/permissions.h"

namespace det::master::rbac {

// A role given to a group, at cluster scope (no workspace) or in one workspace.
struct Assignment {
  int64_t group_id = 0;
  int32_t role_id = 0;
  std::optional<int64_t> workspace_id;

  bool operator==(const Assignment&) const = default;
};

// Whether `assignments` (all those of the user's groups) grant `p` in `workspace`; for nullopt (a
// cluster-wide action), only cluster-scope assignments count. Unknown role ids grant nothing.
bool Grants(const std::vector<Assignment>& assignments, Permission p, std::optional<int64_t> workspace);

// Where `assignments` grant `p`: everywhere (a cluster-scope assignment), or in these workspaces.
struct Reach {
  bool everywhere = false;
  std::set<int64_t> workspaces;

  bool Covers(int64_t workspace) const { return everywhere || workspaces.contains(workspace); }
};
Reach ReachOf(const std::vector<Assignment>& assignments, Permission p);

}  // namespace det::master::rbac

#include "master/rbac/grants.h"

#include "master/rbac/roles.h"

namespace det::master::rbac {
namespace {

bool RoleGrants(int32_t role_id, Permission p) {
  const Role* role = FindRole(role_id);
  return role != nullptr && role->permissions.contains(p);
}

}  // namespace

bool Grants(const std::vector<Assignment>& assignments, Permission p, std::optional<int64_t> workspace) {
  for (const Assignment& a : assignments) {
    const bool in_scope = !a.workspace_id || (workspace && *a.workspace_id == *workspace);
    if (in_scope && RoleGrants(a.role_id, p)) return true;
  }
  return false;
}

Reach ReachOf(const std::vector<Assignment>& assignments, Permission p) {
  Reach out;
  for (const Assignment& a : assignments) {
    if (!RoleGrants(a.role_id, p)) continue;
    if (!a.workspace_id) {
      out.everywhere = true;
    } else {
      out.workspaces.insert(*a.workspace_id);
    }
  }
  return out;
}

}  // namespace det::master::rbac

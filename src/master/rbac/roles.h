#pragma once
// Upstream's ten built-in roles (ids 1-10) and the permissions each grants. They are fixed: there is
// no API to define roles (upstream has none either), so they live here, not in the database, and an
// assignment stores only a role's id.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "master/rbac/permissions.h"

namespace det::master::rbac {

inline constexpr int32_t kClusterAdminRole = 1;
inline constexpr int32_t kWorkspaceAdminRole = 2;
inline constexpr int32_t kEditorRole = 5;

struct Role {
  int32_t id = 0;
  std::string name;
  std::set<Permission> permissions;

  // Whether it holds a global-only permission, and so may be assigned only at cluster scope.
  bool GlobalOnly() const;
};

// The built-in roles, by id.
const std::vector<Role>& BuiltInRoles();

// nullptr when there is no such role.
const Role* FindRole(int32_t id);
const Role* FindRoleByName(std::string_view name);

// Upstream's v1Role: {roleId, name, permissions: [{id, name, scopeTypeMask}], scopeTypeMask}.
nlohmann::json RoleJson(const Role& role);

}  // namespace det::master::rbac

#include "master/rbac/roles.h"

#include <algorithm>

namespace det::master::rbac {
namespace {

using P = Permission;

std::set<Permission> Range(int32_t first, int32_t last) {
  std::set<Permission> out;
  for (const PermissionInfo& p : AllPermissions()) {
    const auto id = static_cast<int32_t>(p.id);
    if (id >= first && id <= last) out.insert(p.id);
  }
  return out;
}

std::set<Permission> Union(std::initializer_list<std::set<Permission>> parts) {
  std::set<Permission> out;
  for (const auto& part : parts) out.insert(part.begin(), part.end());
  return out;
}

std::set<Permission> Without(std::set<Permission> from, std::initializer_list<Permission> removed) {
  for (Permission p : removed) from.erase(p);
  return from;
}

std::vector<Role> MakeRoles() {
  const std::set<Permission> views_of_policies_and_quotas = {P::kViewResourceQuotas, P::kViewGlobalConfigPolicies,
                                                              P::kViewWorkspaceConfigPolicies};
  const std::set<Permission> editor = Union({Range(2001, 2006), Range(3001, 3003), {P::kViewWorkspace},
                                             Range(5001, 5003), Range(7001, 7005), Range(9001, 9004),
                                             views_of_policies_and_quotas, {P::kEditWebhooks, P::kViewWebhooks}});
  std::vector<Role> roles;
  roles.push_back({kClusterAdminRole, "ClusterAdmin", Range(0, INT32_MAX)});
  roles.push_back({kWorkspaceAdminRole, "WorkspaceAdmin",
                   Union({Range(2001, 2006), Range(3001, 3003),
                          {P::kViewWorkspace, P::kUpdateWorkspace, P::kDeleteWorkspace,
                           P::kSetWorkspaceCheckpointStorageConfig, P::kSetWorkspaceDefaultResourcePool},
                          Range(5001, 5004), {P::kAssignRoles}, Range(7001, 7007), Range(9001, 9004),
                          views_of_policies_and_quotas, {P::kModifyWorkspaceConfigPolicies},
                          {P::kEditWebhooks, P::kViewWebhooks}})});
  roles.push_back({3, "WorkspaceCreator",
                   {P::kCreateWorkspace, P::kViewGlobalConfigPolicies, P::kViewWorkspaceConfigPolicies}});
  roles.push_back({4, "Viewer",
                   Union({{P::kViewExperimentArtifacts, P::kViewExperimentMetadata, P::kViewNsc, P::kViewWorkspace,
                           P::kViewProject, P::kViewModelRegistry, P::kViewTemplates, P::kViewWebhooks},
                          views_of_policies_and_quotas})});
  roles.push_back({kEditorRole, "Editor", editor});
  roles.push_back({6, "ModelRegistryViewer",
                   {P::kViewModelRegistry, P::kViewGlobalConfigPolicies, P::kViewWorkspaceConfigPolicies}});
  roles.push_back({7, "EditorRestricted", Without(editor, {P::kCreateNsc, P::kUpdateNsc})});
  roles.push_back({8, "GenAIUser",
                   Union({Range(2001, 2006), Range(3001, 3003), {P::kCreateWorkspace, P::kViewWorkspace},
                          Range(5001, 5004), Range(7001, 7005), Range(9001, 9004), views_of_policies_and_quotas})});
  roles.push_back({9, "EditorProjectRestricted", Without(editor, {P::kCreateProject, P::kUpdateProject})});
  roles.push_back({10, "TokenCreator", {P::kUpdateToken, P::kCreateToken, P::kViewToken}});
  return roles;
}

nlohmann::json ScopeMask(bool global_only) { return {{"cluster", true}, {"workspace", !global_only}}; }

}  // namespace

bool Role::GlobalOnly() const {
  return std::any_of(permissions.begin(), permissions.end(), [](Permission p) { return InfoOf(p).global_only; });
}

const std::vector<Role>& BuiltInRoles() {
  static const std::vector<Role>* roles = new std::vector<Role>(MakeRoles());
  return *roles;
}

const Role* FindRole(int32_t id) {
  for (const Role& r : BuiltInRoles()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const Role* FindRoleByName(std::string_view name) {
  for (const Role& r : BuiltInRoles()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

nlohmann::json RoleJson(const Role& role) {
  nlohmann::json permissions = nlohmann::json::array();
  for (Permission p : role.permissions) {
    const PermissionInfo& info = InfoOf(p);
    permissions.push_back({{"id", info.wire_name}, {"name", ShortName(p)}, {"scopeTypeMask", ScopeMask(info.global_only)}});
  }
  return {{"roleId", role.id},
          {"name", role.name},
          {"permissions", permissions},
          {"scopeTypeMask", ScopeMask(role.GlobalOnly())}};
}

}  // namespace det::master::rbac

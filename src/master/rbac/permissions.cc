#include "master/rbac/permissions.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace det::master::rbac {

const std::vector<PermissionInfo>& AllPermissions() {
  using P = Permission;
  static const std::vector<PermissionInfo>* all = new std::vector<PermissionInfo>{
      {P::kCreateExperiment, "PERMISSION_TYPE_CREATE_EXPERIMENT", false},
      {P::kViewExperimentArtifacts, "PERMISSION_TYPE_VIEW_EXPERIMENT_ARTIFACTS", false},
      {P::kViewExperimentMetadata, "PERMISSION_TYPE_VIEW_EXPERIMENT_METADATA", false},
      {P::kUpdateExperiment, "PERMISSION_TYPE_UPDATE_EXPERIMENT", false},
      {P::kUpdateExperimentMetadata, "PERMISSION_TYPE_UPDATE_EXPERIMENT_METADATA", false},
      {P::kDeleteExperiment, "PERMISSION_TYPE_DELETE_EXPERIMENT", false},
      {P::kCreateNsc, "PERMISSION_TYPE_CREATE_NSC", false},
      {P::kViewNsc, "PERMISSION_TYPE_VIEW_NSC", false},
      {P::kUpdateNsc, "PERMISSION_TYPE_UPDATE_NSC", false},
      {P::kViewWorkspace, "PERMISSION_TYPE_VIEW_WORKSPACE", false},
      {P::kUpdateWorkspace, "PERMISSION_TYPE_UPDATE_WORKSPACE", false},
      {P::kDeleteWorkspace, "PERMISSION_TYPE_DELETE_WORKSPACE", false},
      {P::kSetWorkspaceAgentUserGroup, "PERMISSION_TYPE_SET_WORKSPACE_AGENT_USER_GROUP", false},
      {P::kSetWorkspaceCheckpointStorageConfig, "PERMISSION_TYPE_SET_WORKSPACE_CHECKPOINT_STORAGE_CONFIG", false},
      {P::kSetWorkspaceDefaultResourcePool, "PERMISSION_TYPE_SET_WORKSPACE_DEFAULT_RESOURCE_POOL", false},
      {P::kCreateProject, "PERMISSION_TYPE_CREATE_PROJECT", false},
      {P::kViewProject, "PERMISSION_TYPE_VIEW_PROJECT", false},
      {P::kUpdateProject, "PERMISSION_TYPE_UPDATE_PROJECT", false},
      {P::kDeleteProject, "PERMISSION_TYPE_DELETE_PROJECT", false},
      {P::kAssignRoles, "PERMISSION_TYPE_ASSIGN_ROLES", false},
      {P::kViewModelRegistry, "PERMISSION_TYPE_VIEW_MODEL_REGISTRY", false},
      {P::kEditModelRegistry, "PERMISSION_TYPE_EDIT_MODEL_REGISTRY", false},
      {P::kCreateModelRegistry, "PERMISSION_TYPE_CREATE_MODEL_REGISTRY", false},
      {P::kDeleteModelRegistry, "PERMISSION_TYPE_DELETE_MODEL_REGISTRY", false},
      {P::kDeleteModelVersion, "PERMISSION_TYPE_DELETE_MODEL_VERSION", false},
      {P::kDeleteOtherUserModelRegistry, "PERMISSION_TYPE_DELETE_OTHER_USER_MODEL_REGISTRY", false},
      {P::kDeleteOtherUserModelVersion, "PERMISSION_TYPE_DELETE_OTHER_USER_MODEL_VERSION", false},
      {P::kViewMasterLogs, "PERMISSION_TYPE_VIEW_MASTER_LOGS", true},
      {P::kViewClusterUsage, "PERMISSION_TYPE_VIEW_CLUSTER_USAGE", true},
      {P::kUpdateAgents, "PERMISSION_TYPE_UPDATE_AGENTS", true},
      {P::kViewSensitiveAgentInfo, "PERMISSION_TYPE_VIEW_SENSITIVE_AGENT_INFO", true},
      {P::kViewMasterConfig, "PERMISSION_TYPE_VIEW_MASTER_CONFIG", true},
      {P::kUpdateMasterConfig, "PERMISSION_TYPE_UPDATE_MASTER_CONFIG", true},
      {P::kViewExternalJobs, "PERMISSION_TYPE_VIEW_EXTERNAL_JOBS", true},
      {P::kControlStrictJobQueue, "PERMISSION_TYPE_CONTROL_STRICT_JOB_QUEUE", true},
      {P::kViewTemplates, "PERMISSION_TYPE_VIEW_TEMPLATES", false},
      {P::kUpdateTemplates, "PERMISSION_TYPE_UPDATE_TEMPLATES", false},
      {P::kCreateTemplates, "PERMISSION_TYPE_CREATE_TEMPLATES", false},
      {P::kDeleteTemplates, "PERMISSION_TYPE_DELETE_TEMPLATES", false},
      {P::kModifyRpWorkspaceBindings, "PERMISSION_TYPE_MODIFY_RP_WORKSPACE_BINDINGS", true},
      {P::kSetWorkspaceNamespaceBindings, "PERMISSION_TYPE_SET_WORKSPACE_NAMESPACE_BINDINGS", true},
      {P::kSetResourceQuotas, "PERMISSION_TYPE_SET_RESOURCE_QUOTAS", true},
      {P::kViewResourceQuotas, "PERMISSION_TYPE_VIEW_RESOURCE_QUOTAS", false},
      {P::kModifyGlobalConfigPolicies, "PERMISSION_TYPE_MODIFY_GLOBAL_CONFIG_POLICIES", true},
      {P::kModifyWorkspaceConfigPolicies, "PERMISSION_TYPE_MODIFY_WORKSPACE_CONFIG_POLICIES", false},
      {P::kViewGlobalConfigPolicies, "PERMISSION_TYPE_VIEW_GLOBAL_CONFIG_POLICIES", false},
      {P::kViewWorkspaceConfigPolicies, "PERMISSION_TYPE_VIEW_WORKSPACE_CONFIG_POLICIES", false},
      {P::kAdministrateToken, "PERMISSION_TYPE_ADMINISTRATE_TOKEN", true},
      {P::kUpdateToken, "PERMISSION_TYPE_UPDATE_TOKEN", true},
      {P::kCreateToken, "PERMISSION_TYPE_CREATE_TOKEN", true},
      {P::kCreateOtherToken, "PERMISSION_TYPE_CREATE_OTHER_TOKEN", true},
      {P::kViewOtherToken, "PERMISSION_TYPE_VIEW_OTHER_TOKEN", true},
      {P::kViewToken, "PERMISSION_TYPE_VIEW_TOKEN", true},
      {P::kAdministrateUser, "PERMISSION_TYPE_ADMINISTRATE_USER", true},
      {P::kAdministrateOauth, "PERMISSION_TYPE_ADMINISTRATE_OAUTH", true},
      {P::kUpdateGroup, "PERMISSION_TYPE_UPDATE_GROUP", true},
      {P::kCreateWorkspace, "PERMISSION_TYPE_CREATE_WORKSPACE", true},
      {P::kUpdateRoles, "PERMISSION_TYPE_UPDATE_ROLES", true},
      {P::kEditWebhooks, "PERMISSION_TYPE_EDIT_WEBHOOKS", false},
      {P::kViewWebhooks, "PERMISSION_TYPE_VIEW_WEBHOOKS", false},
  };
  return *all;
}

std::optional<PermissionInfo> FindPermission(int32_t id) {
  const std::vector<PermissionInfo>& all = AllPermissions();
  auto it = std::find_if(all.begin(), all.end(), [id](const PermissionInfo& p) { return static_cast<int32_t>(p.id) == id; });
  if (it == all.end()) return std::nullopt;
  return *it;
}

const PermissionInfo& InfoOf(Permission p) {
  const std::vector<PermissionInfo>& all = AllPermissions();
  return *std::find_if(all.begin(), all.end(), [p](const PermissionInfo& info) { return info.id == p; });
}

std::string ShortName(Permission p) {
  std::string_view name = InfoOf(p).wire_name;
  constexpr std::string_view kPrefix = "PERMISSION_TYPE_";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  return absl::AsciiStrToLower(std::string(name));
}

}  // namespace det::master::rbac

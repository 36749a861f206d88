#pragma once
// The permissions a role grants (upstream's rbacv1.PermissionType): their ids, wire names
// ("PERMISSION_TYPE_CREATE_EXPERIMENT") and whether they exist only at cluster scope (global-only:
// managing users, groups, agents, the master, tokens). The ids are the wire's; never renumber them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace det::master::rbac {

enum class Permission : int32_t {
  kCreateExperiment = 2001,
  kViewExperimentArtifacts = 2002,
  kViewExperimentMetadata = 2003,
  kUpdateExperiment = 2004,
  kUpdateExperimentMetadata = 2005,
  kDeleteExperiment = 2006,
  kCreateNsc = 3001,
  kViewNsc = 3002,
  kUpdateNsc = 3003,
  kViewWorkspace = 4002,
  kUpdateWorkspace = 4003,
  kDeleteWorkspace = 4004,
  kSetWorkspaceAgentUserGroup = 4005,
  kSetWorkspaceCheckpointStorageConfig = 4006,
  kSetWorkspaceDefaultResourcePool = 4007,
  kCreateProject = 5001,
  kViewProject = 5002,
  kUpdateProject = 5003,
  kDeleteProject = 5004,
  kAssignRoles = 6002,
  kViewModelRegistry = 7001,
  kEditModelRegistry = 7002,
  kCreateModelRegistry = 7003,
  kDeleteModelRegistry = 7004,
  kDeleteModelVersion = 7005,
  kDeleteOtherUserModelRegistry = 7006,
  kDeleteOtherUserModelVersion = 7007,
  kViewMasterLogs = 8001,
  kViewClusterUsage = 8002,
  kUpdateAgents = 8003,
  kViewSensitiveAgentInfo = 8004,
  kViewMasterConfig = 8005,
  kUpdateMasterConfig = 8006,
  kViewExternalJobs = 8007,
  kControlStrictJobQueue = 8101,
  kViewTemplates = 9001,
  kUpdateTemplates = 9002,
  kCreateTemplates = 9003,
  kDeleteTemplates = 9004,
  kModifyRpWorkspaceBindings = 10001,
  kSetWorkspaceNamespaceBindings = 11001,
  kSetResourceQuotas = 11002,
  kViewResourceQuotas = 11003,
  kModifyGlobalConfigPolicies = 11004,
  kModifyWorkspaceConfigPolicies = 11005,
  kViewGlobalConfigPolicies = 11006,
  kViewWorkspaceConfigPolicies = 11007,
  kAdministrateToken = 12001,
  kUpdateToken = 12002,
  kCreateToken = 12003,
  kCreateOtherToken = 12004,
  kViewOtherToken = 12005,
  kViewToken = 12006,
  kAdministrateUser = 91001,
  kAdministrateOauth = 91002,
  kUpdateGroup = 93001,
  kCreateWorkspace = 94001,
  kUpdateRoles = 96001,
  kEditWebhooks = 97001,
  kViewWebhooks = 97002,
};

struct PermissionInfo {
  Permission id;
  const char* wire_name;  // "PERMISSION_TYPE_CREATE_EXPERIMENT"
  bool global_only;           // assignable only at cluster scope
};

// Every permission, in id order.
const std::vector<PermissionInfo>& AllPermissions();

// The permission with that id; nullopt for an unknown one.
std::optional<PermissionInfo> FindPermission(int32_t id);

// `p`'s entry (every enumerator has one).
const PermissionInfo& InfoOf(Permission p);

// "create_experiment": the wire name without its prefix, lower case (the permission's `name`).
std::string ShortName(Permission p);

}  // namespace det::master::rbac

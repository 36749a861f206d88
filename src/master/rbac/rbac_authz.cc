#include "master/rbac/rbac_authz.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/db/workspace_store.h"
#include "master/rbac/roles.h"

namespace det::master::rbac {
namespace {

std::string ScopeWords(std::optional<int64_t> workspace) {
  return workspace ? absl::StrCat("in workspace ", *workspace) : "(cluster-wide)";
}

absl::Status Lacks(const Principal& who, Permission needed, std::optional<int64_t> workspace) {
  return absl::PermissionDeniedError(
      absl::StrCat("user ", who.username, " lacks ", InfoOf(needed).wire_name, " ", ScopeWords(workspace)));
}

}  // namespace

absl::Status RbacAuthz::Check(const Principal& who, Permission needed, const OwnedResource& what) const {
  if (!IsViewPermission(needed)) RETURN_IF_ERROR(RequireUserToken(who, absl::StrCat("change ", what.kind, "s")));
  ASSIGN_OR_RETURN(std::vector<Assignment> assignments, groups_.ListUserRoleAssignments(who.user_id));
  if (Grants(assignments, needed, what.workspace_id)) return absl::OkStatus();
  return Lacks(who, needed, what.workspace_id);
}

absl::Status RbacAuthz::CheckCluster(const Principal& who, Permission needed, const std::string& action) const {
  if (!IsViewPermission(needed)) RETURN_IF_ERROR(RequireUserToken(who, action));
  ASSIGN_OR_RETURN(std::vector<Assignment> assignments, groups_.ListUserRoleAssignments(who.user_id));
  if (Grants(assignments, needed, std::nullopt)) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(Lacks(who, needed, std::nullopt).message(), ", needed to ", action));
}

absl::StatusOr<Reach> RbacAuthz::ReachOf(const Principal& who, Permission needed) const {
  ASSIGN_OR_RETURN(std::vector<Assignment> assignments, groups_.ListUserRoleAssignments(who.user_id));
  return rbac::ReachOf(assignments, needed);
}

absl::Status SeedRbacOnce(GroupStore& groups, UserStore& users) {
  ASSIGN_OR_RETURN(std::optional<int64_t> seeded, groups.RbacSeededAt());
  if (seeded) return absl::OkStatus();
  ASSIGN_OR_RETURN(UserPage all, users.ListUsers(UserFilter{}));
  std::vector<Assignment> assignments;
  for (const api::User& u : all.users) {
    ASSIGN_OR_RETURN(int64_t personal, groups.PersonalGroupOf(u.id));
    assignments.push_back(u.admin ? Assignment{.group_id = personal, .role_id = kClusterAdminRole}
                                  : Assignment{.group_id = personal, .role_id = kEditorRole,
                                               .workspace_id = kUncategorizedWorkspace});
  }
  RETURN_IF_ERROR(groups.AddRoleAssignments(assignments));
  const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return groups.SetRbacSeededAt(now.count());
}

}  // namespace det::master::rbac

#include "master/task/authz.h"

#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

using rbac::Permission;

// What every user may do in basic mode: create things, and change templates (which have no owner).
bool IsOpenToAllInBasic(Permission p) {
  static const std::set<Permission>* open = new std::set<Permission>{
      Permission::kCreateExperiment, Permission::kCreateNsc,       Permission::kCreateProject,
      Permission::kCreateModelRegistry, Permission::kCreateTemplates, Permission::kCreateWorkspace,
      Permission::kCreateToken,      Permission::kUpdateTemplates, Permission::kDeleteTemplates};
  return open->contains(p);
}

bool IsAdminOnlyInBasic(Permission p) {
  static const std::set<Permission>* admin_only = new std::set<Permission>{
      Permission::kAdministrateUser,       Permission::kAdministrateOauth,     Permission::kUpdateAgents,
      Permission::kUpdateGroup,            Permission::kAssignRoles,           Permission::kUpdateRoles,
      Permission::kUpdateMasterConfig,     Permission::kModifyRpWorkspaceBindings, Permission::kAdministrateToken,
      Permission::kCreateOtherToken,       Permission::kViewOtherToken,        Permission::kSetResourceQuotas,
      Permission::kSetWorkspaceNamespaceBindings, Permission::kModifyGlobalConfigPolicies,
      Permission::kControlStrictJobQueue};
  return admin_only->contains(p);
}

std::mutex installed_mu;
std::shared_ptr<const Authz>& Installed() {
  static auto* installed = new std::shared_ptr<const Authz>(std::make_shared<BasicAuthz>());
  return *installed;
}

}  // namespace

bool IsViewPermission(Permission p) { return rbac::ShortName(p).starts_with("view_"); }

absl::Status RequireUserToken(const Principal& who, const std::string& action) {
  if (who.allocation_id.empty()) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("tasks cannot ", action, " with an allocation token; use a user's token"));
}

absl::Status BasicAuthz::Check(const Principal& who, Permission needed, const OwnedResource& what) const {
  if (IsViewPermission(needed)) return absl::OkStatus();
  RETURN_IF_ERROR(RequireUserToken(who, absl::StrCat("change ", what.kind, "s")));
  if (IsOpenToAllInBasic(needed) || who.admin || who.user_id == what.owner_id) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("user ", who.username, " is not the owner of ", what.kind, " ", what.id, " and is not an admin"));
}

absl::Status BasicAuthz::CheckCluster(const Principal& who, Permission needed, const std::string& action) const {
  if (IsViewPermission(needed) && !IsAdminOnlyInBasic(needed)) return absl::OkStatus();
  RETURN_IF_ERROR(RequireUserToken(who, action));
  if (!IsAdminOnlyInBasic(needed) || who.admin) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("only admins can ", action, "; user ", who.username, " is not an admin"));
}

absl::StatusOr<rbac::Reach> BasicAuthz::ReachOf(const Principal&, Permission) const {
  return rbac::Reach{.everywhere = true};
}

absl::Status CheckRead(const Principal& who, Permission needed, const OwnedResource& what) {
  absl::Status allowed = DefaultAuthz().Check(who, needed, what);
  if (absl::IsPermissionDenied(allowed)) return absl::NotFoundError(absl::StrCat(what.kind, " ", what.id, " not found"));
  return allowed;
}

absl::StatusOr<std::optional<std::vector<int64_t>>> VisibleWorkspaces(const Principal& who, Permission needed) {
  ASSIGN_OR_RETURN(rbac::Reach reach, DefaultAuthz().ReachOf(who, needed));
  if (reach.everywhere) return std::optional<std::vector<int64_t>>();
  return std::optional<std::vector<int64_t>>(std::vector<int64_t>(reach.workspaces.begin(), reach.workspaces.end()));
}

const Authz& DefaultAuthz() {
  std::lock_guard lock(installed_mu);
  return *Installed();
}

void InstallAuthz(std::shared_ptr<const Authz> authz) {
  std::lock_guard lock(installed_mu);
  Installed() = std::move(authz);
}

}  // namespace det::master

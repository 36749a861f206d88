#include "master/auth/token_access.h"

#include "absl/strings/str_cat.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

const char* Verb(TokenAction action) {
  switch (action) {
    case TokenAction::kCreate: return "create access tokens for";
    case TokenAction::kView: return "view the access tokens of";
    case TokenAction::kUpdate: return "edit or revoke the access tokens of";
  }
  return "use the access tokens of";
}

// Under rbac, the permission an action needs on one's own tokens, or on another user's.
rbac::Permission Needed(TokenAction action, bool own) {
  switch (action) {
    case TokenAction::kCreate: return own ? rbac::Permission::kCreateToken : rbac::Permission::kCreateOtherToken;
    case TokenAction::kView: return own ? rbac::Permission::kViewToken : rbac::Permission::kViewOtherToken;
    case TokenAction::kUpdate: return own ? rbac::Permission::kUpdateToken : rbac::Permission::kAdministrateToken;
  }
  return rbac::Permission::kAdministrateToken;
}

}  // namespace

absl::Status CheckTokenAccess(const Principal& who, TokenAction action, int64_t owner_user_id) {
  if (!who.allocation_id.empty()) {
    return absl::PermissionDeniedError(
        "a task's allocation token cannot create, view, edit or revoke access tokens; use a user's token");
  }
  const bool own = who.user_id == owner_user_id;
  if (DefaultAuthz().IsRbac()) {
    return DefaultAuthz().CheckCluster(who, Needed(action, own), absl::StrCat(Verb(action), own ? " oneself" : " another user"));
  }
  if (own || who.admin) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("only an admin may ", Verb(action), " another user; user ",
                                                  who.username, " is not an admin"));
}

bool MayViewEveryonesTokens(const Principal& who) {
  if (!who.allocation_id.empty()) return false;
  if (DefaultAuthz().IsRbac()) return CheckTokenAccess(who, TokenAction::kView, -1).ok();
  return who.admin;
}

}  // namespace det::master

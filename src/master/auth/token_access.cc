#include "master/auth/token_access.h"

#include "absl/strings/str_cat.h"

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

}  // namespace

absl::Status CheckTokenAccess(const Principal& who, TokenAction action, int64_t owner_user_id) {
  if (!who.allocation_id.empty()) {
    return absl::PermissionDeniedError(
        "a task's allocation token cannot create, view, edit or revoke access tokens; use a user's token");
  }
  if (who.user_id == owner_user_id || who.admin) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("only an admin may ", Verb(action), " another user; user ",
                                                  who.username, " is not an admin"));
}

bool MayViewEveryonesTokens(const Principal& who) { return who.allocation_id.empty() && who.admin; }

}  // namespace det::master

#include "master/task/authz.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {

absl::Status BasicAuthz::CanView(const Principal&, const OwnedResource&) const { return absl::OkStatus(); }

absl::Status RequireUserToken(const Principal& who, const std::string& action) {
  if (who.allocation_id.empty()) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("tasks cannot ", action, " with an allocation token; use a user's token"));
}

absl::Status BasicAuthz::CanChange(const Principal& who, const OwnedResource& what) const {
  RETURN_IF_ERROR(RequireUserToken(who, absl::StrCat("change ", what.kind, "s")));
  if (who.admin || who.user_id == what.owner_id) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("user ", who.username, " is not the owner of ", what.kind, " ", what.id, " and is not an admin"));
}

const Authz& DefaultAuthz() {
  static const BasicAuthz* authz = new BasicAuthz();
  return *authz;
}

}  // namespace det::master

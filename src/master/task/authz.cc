#include "master/task/authz.h"

#include "absl/strings/str_cat.h"

namespace det::master {

absl::Status BasicAuthz::CanView(const Principal&, const OwnedResource&) const { return absl::OkStatus(); }

absl::Status BasicAuthz::CanChange(const Principal& who, const OwnedResource& what) const {
  if (!who.allocation_id.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("tasks cannot change ", what.kind, "s with an allocation token"));
  }
  if (who.admin || who.user_id == what.owner_id) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("user ", who.username, " is not the owner of ", what.kind, " ", what.id, " and is not an admin"));
}

const Authz& DefaultAuthz() {
  static const BasicAuthz* authz = new BasicAuthz();
  return *authz;
}

}  // namespace det::master

#pragma once
// security.authz.type: rbac. A user may do what a role assigned to one of their groups (their personal
// group included) grants, in the thing's workspace or cluster-wide; nothing else, admin flag or not. The
// assignments are read for every check, so a change (a group left, a role removed) holds at the next
// request. A task's allocation token reads as its owner and changes nothing.
#include <memory>
#include <string>

#include "master/db/group_store.h"
#include "master/db/user_store.h"
#include "master/task/authz.h"

namespace det::master::rbac {

class RbacAuthz : public Authz {
 public:
  explicit RbacAuthz(GroupStore& groups) : groups_(groups) {}

  // PermissionDenied "user X lacks PERMISSION_TYPE_UPDATE_EXPERIMENT in workspace 3".
  absl::Status Check(const Principal& who, Permission needed, const OwnedResource& what) const override;
  // PermissionDenied "user X lacks PERMISSION_TYPE_UPDATE_AGENTS (cluster-wide), needed to disable agents".
  absl::Status CheckCluster(const Principal& who, Permission needed, const std::string& action) const override;
  absl::StatusOr<Reach> ReachOf(const Principal& who, Permission needed) const override;
  bool IsRbac() const override { return true; }

 private:
  GroupStore& groups_;
};

// The first time the rbac rule runs on a cluster (recorded in the store), every admin gets ClusterAdmin
// and every other user Editor on the Uncategorized workspace, so that nobody is locked out. Later runs
// change nothing.
absl::Status SeedRbacOnce(GroupStore& groups, UserStore& users);

}  // namespace det::master::rbac

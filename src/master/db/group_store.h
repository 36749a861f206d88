#pragma once
// User groups and role assignments (upstream's RBAC). Every user also has a personal group, created
// when first needed, which carries the roles assigned to the user directly; personal groups are never
// listed and cannot be renamed, joined or deleted. The roles themselves are built in (master/rbac).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/rbac/grants.h"

namespace det::master {

struct Group {
  int64_t id = 0;
  std::string name;
  std::optional<int64_t> personal_of;  // the user whose personal group it is
  int64_t num_members = 0;
};

struct GroupFilter {
  std::optional<int64_t> member;  // only groups this user belongs to
  std::string name;               // exact; "" = any
  int64_t offset = 0;
  int64_t limit = 0;  // 0 = all
};

struct GroupPage {
  std::vector<Group> groups;  // by id; personal groups left out
  int64_t total = 0;          // matching before offset/limit
};

// Every assignment, or those of one group or role, or in one workspace (cluster-wide ones included when
// `workspace_id` is set and `with_cluster` is true).
struct RoleAssignmentFilter {
  std::optional<int64_t> group_id;
  std::optional<int32_t> role_id;
  std::optional<int64_t> workspace_id;
  bool with_cluster = false;
};

class GroupStore {
 public:
  virtual ~GroupStore() = default;

  // AlreadyExists `group "NAME" already exists`. `members` are user ids.
  virtual absl::StatusOr<Group> InsertGroup(const std::string& name, const std::vector<int64_t>& members) = 0;
  // NotFound `group ID not found`.
  virtual absl::StatusOr<Group> GetGroup(int64_t id) = 0;
  virtual absl::StatusOr<GroupPage> ListGroups(const GroupFilter& filter) = 0;
  // The user ids of its members, ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ListGroupMembers(int64_t id) = 0;
  // Renames (unless nullopt) and changes members, in one transaction. AlreadyExists for a taken name.
  virtual absl::StatusOr<Group> UpdateGroup(int64_t id, const std::optional<std::string>& name,
                                            const std::vector<int64_t>& add, const std::vector<int64_t>& remove) = 0;
  // The group, its memberships and its role assignments.
  virtual absl::Status DeleteGroup(int64_t id) = 0;
  // The user's personal group, created (with the user as its one member) when it does not exist yet.
  virtual absl::StatusOr<int64_t> PersonalGroupOf(int64_t user_id) = 0;

  // Idempotent: an existing assignment stays, a missing one is no error to remove.
  virtual absl::Status AddRoleAssignments(const std::vector<rbac::Assignment>& assignments) = 0;
  virtual absl::Status RemoveRoleAssignments(const std::vector<rbac::Assignment>& assignments) = 0;
  // The assignments of every group the user belongs to (their personal group included).
  virtual absl::StatusOr<std::vector<rbac::Assignment>> ListUserRoleAssignments(int64_t user_id) = 0;
  virtual absl::StatusOr<std::vector<rbac::Assignment>> ListRoleAssignments(const RoleAssignmentFilter& filter) = 0;

  // When the rbac rule first ran and seeded its assignments (nullopt: never).
  virtual absl::StatusOr<std::optional<int64_t>> RbacSeededAt() = 0;
  virtual absl::Status SetRbacSeededAt(int64_t micros) = 0;
};

}  // namespace det::master

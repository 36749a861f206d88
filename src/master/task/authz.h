#pragma once
// Who may do what: the one rule every handler asks, with the permission the action needs (upstream's
// permission ids, master/rbac/permissions.h) and the thing it is done to. The rule in force is chosen
// at startup (security.authz.type):
//  - BasicAuthz (basic, the default): every authenticated user sees everything, creates what they
//    like and changes templates; a user changes (kills, pauses, reprioritizes, edits, deletes) only what they own, unless they
//    are an admin (unlike upstream, a user cannot kill another user's task: determined-ai/determined#7088);
//    managing users, groups, roles, agents and the master is for admins.
//  - RbacAuthz (rbac, master/rbac/rbac_authz.h): the permission must be granted by a role assigned to one
//    of the user's groups, in the thing's workspace or cluster-wide.
// In both, a task authenticated by its allocation token changes nothing through these checks.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/http/http_types.h"
#include "master/rbac/grants.h"
#include "master/rbac/permissions.h"

namespace det::master {

// The thing a request is about, for messages, the owner rule and the workspace scope.
struct OwnedResource {
  std::string kind;  // "experiment", "command", "task", ...
  std::string id;
  int64_t owner_id = 0;
  std::optional<int64_t> workspace_id;  // the workspace it belongs to; nullopt: none (cluster scope)
};

class Authz {
 public:
  virtual ~Authz() = default;
  // OK when `who` may do what `needed` allows to `what`; PermissionDenied saying what is missing.
  virtual absl::Status Check(const Principal& who, rbac::Permission needed, const OwnedResource& what) const = 0;
  // The same for an action on the cluster itself (users, groups, roles, agents, the master): `action`
  // words it for messages ("create users").
  virtual absl::Status CheckCluster(const Principal& who, rbac::Permission needed, const std::string& action) const = 0;
  // Where `who` holds `needed`: everywhere, or in these workspaces (what lists show them).
  virtual absl::StatusOr<rbac::Reach> ReachOf(const Principal& who, rbac::Permission needed) const = 0;
  // Whether it is the rbac rule.
  virtual bool IsRbac() const { return false; }
};

class BasicAuthz : public Authz {
 public:
  // Views, creations and template changes: OK. Other changes: PermissionDenied "user X is not the owner of command ID and is
  // not an admin" unless owner or admin.
  absl::Status Check(const Principal& who, rbac::Permission needed, const OwnedResource& what) const override;
  // Admins only for managing users, groups, roles, agents, the master config, resource pool bindings,
  // a strict job queue (security.authz.strict_job_queue_control) and
  // other users' tokens ("only admins can ACTION; user X is not an admin"); OK otherwise.
  absl::Status CheckCluster(const Principal& who, rbac::Permission needed, const std::string& action) const override;
  // Everywhere: every user sees everything.
  absl::StatusOr<rbac::Reach> ReachOf(const Principal& who, rbac::Permission needed) const override;
};

// Check for a read: what `who` may not see does not exist for them (NotFound "KIND ID not found"), as
// upstream hides it.
absl::Status CheckRead(const Principal& who, rbac::Permission needed, const OwnedResource& what);

// The workspaces whose things `who` may see with `needed` under the rule in force; nullopt: every one. For a
// list's filter.
absl::StatusOr<std::optional<std::vector<int64_t>>> VisibleWorkspaces(const Principal& who, rbac::Permission needed);

// Whether `p` only reads (its name starts with VIEW_).
bool IsViewPermission(rbac::Permission p);

// OK for a user's token. A task's allocation token acts for no user: PermissionDenied "tasks cannot
// ACTION with an allocation token; use a user's token".
absl::Status RequireUserToken(const Principal& who, const std::string& action);

// The rule in force: BasicAuthz until InstallAuthz.
const Authz& DefaultAuthz();
// Makes `authz` the rule in force (main, once, before serving; tests restore it).
void InstallAuthz(std::shared_ptr<const Authz> authz);

}  // namespace det::master

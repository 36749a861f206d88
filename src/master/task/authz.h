#pragma once
// Who may see, change or kill what: the one rule every handler asks (RBAC will be another
// implementation of the same interface). BasicAuthz, the rule until then:
//  - every authenticated user sees everything;
//  - a user changes (kills, pauses, reprioritizes, edits) only what they own, unless they are an
//    admin: unlike upstream, a user cannot kill another user's task (determined-ai/determined#7088);
//  - a task authenticated by its allocation token changes nothing through these checks.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "master/http/http_types.h"

namespace det::master {

// The thing a request is about, for messages and the rule.
struct OwnedResource {
  std::string kind;  // "experiment", "command", "task", ...
  std::string id;
  int64_t owner_id = 0;
};

class Authz {
 public:
  virtual ~Authz() = default;
  virtual absl::Status CanView(const Principal& who, const OwnedResource& what) const = 0;
  virtual absl::Status CanChange(const Principal& who, const OwnedResource& what) const = 0;
};

class BasicAuthz : public Authz {
 public:
  absl::Status CanView(const Principal& who, const OwnedResource& what) const override;
  // PermissionDenied "user X is not the owner of command ID and is not an admin".
  absl::Status CanChange(const Principal& who, const OwnedResource& what) const override;
};

// OK for a user's token. A task's allocation token acts for no user: PermissionDenied "tasks cannot
// ACTION with an allocation token; use a user's token".
absl::Status RequireUserToken(const Principal& who, const std::string& action);

// The rule in force (BasicAuthz until RBAC exists).
const Authz& DefaultAuthz();

}  // namespace det::master

#pragma once
// Who may do what with access tokens: the one place the token endpoints ask, with upstream's permissions
// (own / another user's):
//   create  CREATE_TOKEN 12003 / CREATE_OTHER_TOKEN 12004
//   view    VIEW_TOKEN 12006   / VIEW_OTHER_TOKEN 12005
//   update  UPDATE_TOKEN 12002 / ADMINISTRATE_TOKEN 12001 (edit the description, revoke)
// Basic authz: everyone may do all three with their own tokens; only admins with other users'. Under rbac:
// the permission above, cluster-wide (TokenCreator gives the own-token ones). A task's allocation token
// belongs to no user and may do none of them.
#include <cstdint>

#include "absl/status/status.h"
#include "master/http/http_types.h"

namespace det::master {

enum class TokenAction { kCreate, kView, kUpdate };

// OK, or PermissionDenied saying who may not do what and what it takes.
absl::Status CheckTokenAccess(const Principal& who, TokenAction action, int64_t owner_user_id);

// Whether `who` may see every user's tokens (a list without a username is then not narrowed to
// their own).
bool MayViewEveryonesTokens(const Principal& who);

}  // namespace det::master

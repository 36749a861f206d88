#pragma once
// Request parsing and permission rules for the user endpoints (reference §1a), kept apart from the
// routes so they can be tested without a server.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"
#include "master/db/store.h"
#include "master/http/http_types.h"

namespace det::master {

// GetUsers query: name, active, admin, sortBy (SORT_BY_X or number), orderBy, offset (negative =
// from the end, resolved by the caller), limit.
struct UserListQuery {
  UserFilter filter;
  int64_t offset = 0;
};
absl::StatusOr<UserListQuery> ParseUserListQuery(const HttpRequest& request);

// The stored form of a password given in a request: nullopt for a blank one, else bcrypt of the
// client-side SHA-512 form (`is_hashed` = the client already applied it).
absl::StatusOr<std::optional<std::string>> StoredPasswordHash(const std::string& password,
                                                              bool is_hashed);

// PostUser body: {"user": {username, admin, active (default true), displayName}, password,
// isHashed}.
absl::StatusOr<api::User> ParseNewUser(const nlohmann::json& body);

// PatchUser body (the PatchUser message itself): username, displayName, admin, active, password
// (+ isHashed). Validates values but not permissions.
absl::StatusOr<UserPatch> ParseUserPatch(const nlohmann::json& body);

// Admins may change anything of anyone; other users only their own display name and password.
// Tasks (allocation tokens) may change nothing.
absl::Status CheckCanPatchUser(const Principal& who, int64_t target_user_id,
                               const UserPatch& patch);
// Admins only (creating users); PermissionDenied "only admins can ..." otherwise.
absl::Status CheckAdmin(const Principal& who, const std::string& what);

}  // namespace det::master

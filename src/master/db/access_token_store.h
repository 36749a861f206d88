#pragma once
// Access tokens (POST/GET/PATCH /api/v1/tokens): long-lived bearer tokens a user or an admin makes,
// kept as upstream keeps them, as rows of user_sessions with token_type ACCESS_TOKEN beside the
// login sessions (USER_SESSION). Only the token's SHA-256 is stored, as for sessions; a token
// authenticates through UserStore::LookupSession until it expires or is revoked. Access tokens are
// never deleted (revoking sets revoked_at), so their ids are never given twice.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/time_util.h"

namespace det::master {

enum class TokenType { kUserSession, kAccessToken };

// One row as GetAccessTokens shows it.
struct AccessTokenInfo {
  int64_t id = 0;
  int64_t user_id = 0;
  WallTime expiry;
  WallTime created_at;
  TokenType type = TokenType::kAccessToken;
  std::optional<WallTime> revoked_at;
  std::string description;  // "" = none
  // Neither revoked nor expired at `now`.
  bool ActiveAt(WallTime now) const { return !revoked_at.has_value() && expiry > now; }
};

struct NewAccessToken {
  std::string token_hash;  // Sha256Hex of the token handed to the user
  int64_t user_id = 0;
  WallTime created_at;
  WallTime expiry;
  std::string description;
};

// GetAccessTokensRequest.SortBy.
enum class AccessTokenSort { kId, kUserId, kExpiry, kCreatedAt, kTokenType, kRevoked, kDescription };

struct AccessTokenFilter {
  std::vector<int64_t> ids;        // empty = any
  std::optional<int64_t> user_id;  // unset = every user's
  bool show_inactive = false;      // false: only tokens active at `now`
  WallTime now;
  AccessTokenSort sort = AccessTokenSort::kId;
  bool descending = false;  // ties are broken by ascending id
};

// PatchAccessToken: unset = unchanged.
struct AccessTokenPatch {
  std::optional<std::string> description;
  bool revoke = false;
};

class AccessTokenStore {
 public:
  virtual ~AccessTokenStore() = default;

  // Returns the new token's id.
  virtual absl::StatusOr<int64_t> AddAccessToken(const NewAccessToken& token) = 0;
  // NotFound `access token ID not found` (also for the id of a login session).
  virtual absl::StatusOr<AccessTokenInfo> GetAccessToken(int64_t id) = 0;
  virtual absl::StatusOr<std::vector<AccessTokenInfo>> ListAccessTokens(const AccessTokenFilter& filter) = 0;
  // Applies `patch` to a token active at `now` (revoked_at = `now` when revoking), atomically.
  // NotFound as GetAccessToken; FailedPrecondition `access token ID is revoked|expired ...` when it
  // is no longer active.
  virtual absl::StatusOr<AccessTokenInfo> UpdateAccessToken(int64_t id, const AccessTokenPatch& patch,
                                                            WallTime now) = 0;
};

}  // namespace det::master

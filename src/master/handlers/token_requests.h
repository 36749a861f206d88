#pragma once
// Request parsing and reply JSON of the access-token endpoints (POST/GET/PATCH /api/v1/tokens), in
// upstream's wire form (v1PostAccessTokenRequest, v1TokenInfo, ...), kept apart from the routes so
// they can be tested without a server.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/db/access_token_store.h"
#include "master/http/http_types.h"

namespace det::master {

// PostAccessToken body: userId (required), lifespan (Go duration, "-1"; "" = the default),
// description.
struct TokenCreateRequest {
  int64_t user_id = 0;
  std::string lifespan;
  std::string description;
};
absl::StatusOr<TokenCreateRequest> ParseTokenCreate(const nlohmann::json& body);

// GetAccessTokens query: tokenIds (repeated), username, showInactive, sortBy (SORT_BY_X or its
// number), orderBy, offset (negative = from the end), limit (0 = all).
struct TokenListQuery {
  std::vector<int64_t> token_ids;
  std::string username;
  bool show_inactive = false;
  AccessTokenSort sort = AccessTokenSort::kId;
  bool descending = false;
  int64_t offset = 0;
  int64_t limit = 0;
};
absl::StatusOr<TokenListQuery> ParseTokenListQuery(const HttpRequest& request);

// PatchAccessToken body: description (absent or null = unchanged), setRevoked. The body's tokenId,
// if any, is the path's (the path wins).
absl::StatusOr<AccessTokenPatch> ParseTokenPatch(const nlohmann::json& body);

// v1TokenInfo: {id, userId, expiry, createdAt, tokenType, revoked, description}.
nlohmann::json TokenInfoJson(const AccessTokenInfo& token);

}  // namespace det::master

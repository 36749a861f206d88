#include "master/handlers/token_requests.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/handler_util.h"

namespace det::master {
namespace {

using nlohmann::json;

// SORT_BY_X in GetAccessTokensRequest.SortBy's order, so that its number is the index.
constexpr std::pair<const char*, AccessTokenSort> kSorts[] = {
    {"SORT_BY_UNSPECIFIED", AccessTokenSort::kId},        {"SORT_BY_USER_ID", AccessTokenSort::kUserId},
    {"SORT_BY_EXPIRY", AccessTokenSort::kExpiry},         {"SORT_BY_CREATED_AT", AccessTokenSort::kCreatedAt},
    {"SORT_BY_TOKEN_TYPE", AccessTokenSort::kTokenType},  {"SORT_BY_REVOKED", AccessTokenSort::kRevoked},
    {"SORT_BY_DESCRIPTION", AccessTokenSort::kDescription},
};

absl::StatusOr<AccessTokenSort> ParseSort(const std::string& text) {
  int number = -1;
  for (size_t i = 0; i < std::size(kSorts); ++i) {
    if (text == kSorts[i].first || (absl::SimpleAtoi(text, &number) && number == static_cast<int>(i))) {
      return kSorts[i].second;
    }
  }
  std::string allowed;
  for (const auto& [name, sort] : kSorts) absl::StrAppend(&allowed, allowed.empty() ? "" : ", ", name);
  return absl::InvalidArgumentError(absl::StrCat("sortBy: \"", text, "\" is not one of ", allowed));
}

}  // namespace

absl::StatusOr<TokenCreateRequest> ParseTokenCreate(const json& body) {
  TokenCreateRequest out;
  const json* user_id = api::FindField(body, "user_id");
  if (user_id == nullptr) return absl::InvalidArgumentError("userId is required: the id of the token's user");
  ASSIGN_OR_RETURN(out.user_id, api::ReadInt64(*user_id, "userId"));
  if (out.user_id <= 0) return absl::InvalidArgumentError(absl::StrCat("userId: must be a user's id (>= 1), got ", out.user_id));
  ASSIGN_OR_RETURN(std::optional<std::string> lifespan, api::OptionalStringField(body, "lifespan"));
  out.lifespan = lifespan.value_or("");
  ASSIGN_OR_RETURN(std::optional<std::string> description, api::OptionalStringField(body, "description"));
  out.description = description.value_or("");
  return out;
}

absl::StatusOr<TokenListQuery> ParseTokenListQuery(const HttpRequest& request) {
  TokenListQuery q;
  for (const std::string& text : request.QueryAll("token_ids")) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(text, &id) || id <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("tokenIds: \"", text, "\" is not a token id (an integer >= 1)"));
    }
    q.token_ids.push_back(id);
  }
  q.username = request.Query("username").value_or("");
  ASSIGN_OR_RETURN(std::optional<bool> show_inactive, QueryOptionalBool(request, "show_inactive"));
  q.show_inactive = show_inactive.value_or(false);
  ASSIGN_OR_RETURN(q.sort, ParseSort(request.Query("sort_by").value_or("SORT_BY_UNSPECIFIED")));
  ASSIGN_OR_RETURN(q.descending, QueryOrderDescending(request));
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(q.limit, QueryInt(request, "limit", 0));
  if (q.limit < 0) return absl::InvalidArgumentError(absl::StrCat("limit: must be >= 0 (0 = all), got ", q.limit));
  return q;
}

absl::StatusOr<AccessTokenPatch> ParseTokenPatch(const json& body) {
  AccessTokenPatch patch;
  ASSIGN_OR_RETURN(patch.description, api::OptionalStringField(body, "description"));
  if (const json* revoke = api::FindField(body, "set_revoked")) {
    if (!revoke->is_boolean()) {
      return absl::InvalidArgumentError(absl::StrCat("setRevoked: must be true or false, got ", revoke->dump()));
    }
    patch.revoke = revoke->get<bool>();
  }
  return patch;
}

json TokenInfoJson(const AccessTokenInfo& token) {
  return json{{"id", token.id},
              {"userId", token.user_id},
              {"expiry", FormatRfc3339(token.expiry)},
              {"createdAt", FormatRfc3339(token.created_at)},
              {"tokenType", token.type == TokenType::kAccessToken ? "TOKEN_TYPE_ACCESS_TOKEN" : "TOKEN_TYPE_USER_SESSION"},
              {"revoked", token.revoked_at.has_value()},
              {"description", token.description}};
}

}  // namespace det::master

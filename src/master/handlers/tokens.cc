// Access tokens (upstream's PostAccessToken, GetAccessTokens, PatchAccessToken): long-lived bearer
// tokens for scripts and CI. Who may do what is token_access.h's; how long a token lives,
// token_lifespan.h's (security.token).
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "common/crypto.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "master/auth/token_access.h"
#include "master/auth/token_lifespan.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/page.h"
#include "master/handlers/routes.h"
#include "master/handlers/token_requests.h"

namespace det::master {
namespace {

using nlohmann::json;

WallTime Now() { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); }

absl::StatusOr<json> PostAccessToken(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(TokenCreateRequest create, ParseTokenCreate(body));
  RETURN_IF_ERROR(CheckTokenAccess(*req.principal, TokenAction::kCreate, create.user_id));
  ASSIGN_OR_RETURN(api::User user, ctx.store.GetUser(create.user_id));
  ASSIGN_OR_RETURN(std::chrono::seconds lifespan, AccessTokenLifespan(create.lifespan, ctx.config.security.token));
  std::string token = RandomHex(32);
  WallTime now = Now();
  ASSIGN_OR_RETURN(int64_t id, ctx.store.AddAccessToken(NewAccessToken{.token_hash = Sha256Hex(token),
                                                                       .user_id = user.id,
                                                                       .created_at = now,
                                                                       .expiry = now + lifespan,
                                                                       .description = create.description}));
  return json{{"token", token}, {"tokenId", id}};
}

absl::StatusOr<json> GetAccessTokens(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(TokenListQuery q, ParseTokenListQuery(req));
  const Principal& who = *req.principal;
  AccessTokenFilter filter{.ids = q.token_ids, .show_inactive = q.show_inactive, .now = Now(), .sort = q.sort,
                           .descending = q.descending};
  if (!q.username.empty()) {
    ASSIGN_OR_RETURN(api::User user, ctx.store.GetUserByName(q.username));
    RETURN_IF_ERROR(CheckTokenAccess(who, TokenAction::kView, user.id));
    filter.user_id = user.id;
  } else if (!MayViewEveryonesTokens(who)) {
    RETURN_IF_ERROR(CheckTokenAccess(who, TokenAction::kView, who.user_id));  // a task's is refused
    filter.user_id = who.user_id;  // their own only
  }
  ASSIGN_OR_RETURN(std::vector<AccessTokenInfo> tokens, ctx.store.ListAccessTokens(filter));
  const auto total = static_cast<int64_t>(tokens.size());
  PageRange page = PageOf(total, q.offset, q.limit);
  json infos = json::array();
  for (int64_t i = page.begin; i < page.end; ++i) infos.push_back(TokenInfoJson(tokens[i]));
  return json{{"tokenInfo", std::move(infos)}, {"pagination", PagePagination(q.offset, q.limit, page, total)}};
}

absl::StatusOr<json> PatchAccessToken(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "token_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(AccessTokenPatch patch, ParseTokenPatch(body));
  ASSIGN_OR_RETURN(AccessTokenInfo token, ctx.store.GetAccessToken(id));
  RETURN_IF_ERROR(CheckTokenAccess(*req.principal, TokenAction::kUpdate, token.user_id));
  ASSIGN_OR_RETURN(AccessTokenInfo updated, ctx.store.UpdateAccessToken(id, patch, Now()));
  return json{{"tokenInfo", TokenInfoJson(updated)}};
}

}  // namespace

void RegisterTokenRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/tokens", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PostAccessToken(ctx, req)); });
  router.Add("GET", "/api/v1/tokens", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, GetAccessTokens(ctx, req)); });
  router.Add("PATCH", "/api/v1/tokens/{token_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PatchAccessToken(ctx, req)); });
}

}  // namespace det::master

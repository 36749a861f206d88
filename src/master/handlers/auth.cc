#include "common/json_yaml.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/crypto.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "master/auth/password.h"
#include "master/auth/token_authenticator.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

constexpr auto kSessionLifetime = std::chrono::hours(24 * 7);

absl::StatusOr<nlohmann::json> Login(MasterContext& ctx, const HttpRequest& request, std::string* token_out) {
  ASSIGN_OR_RETURN(nlohmann::json body, JsonBody(request));
  std::string username = api::StringField(body, "username");
  std::string password = api::StringField(body, "password");
  const nlohmann::json* is_hashed = api::FindField(body, "is_hashed");
  if (username.empty()) return absl::InvalidArgumentError("username is required");
  absl::StatusOr<api::User> user = ctx.store.GetUserByName(username);
  if (!user.ok() || !PasswordMatches(*user, password, is_hashed != nullptr && is_hashed->is_boolean() && is_hashed->get<bool>())) {
    return absl::UnauthenticatedError("invalid credentials");
  }
  if (!user->active) return absl::PermissionDeniedError("user is not active");
  std::string token = RandomHex(32);
  RETURN_IF_ERROR(ctx.store.AddSession(Sha256Hex(token), user->id, std::chrono::system_clock::now() + kSessionLifetime));
  *token_out = token;
  return nlohmann::json{{"token", token}, {"user", api::ToJson(*user)}};
}

// POST /api/v1/auth/login: the reply sets the web UI's `auth` cookie too.
absl::StatusOr<HttpResponse> LoginResponse(MasterContext& ctx, const HttpRequest& req) {
  std::string token;
  ASSIGN_OR_RETURN(nlohmann::json body, Login(ctx, req, &token));
  HttpResponse resp = JsonResponse(200, DumpJson(body));
  resp.headers.emplace_back("Set-Cookie", "auth=" + token + "; Path=/; HttpOnly; Max-Age=604800");
  return resp;
}

absl::StatusOr<HttpResponse> Logout(MasterContext& ctx, const HttpRequest& req) {
  if (!req.principal->allocation_id.empty()) {
    return absl::InvalidArgumentError("cannot log out of an allocation token");
  }
  RETURN_IF_ERROR(ctx.store.DeleteSession(Sha256Hex(req.principal->token)));
  HttpResponse resp = JsonResponse(200, "{}");
  resp.headers.emplace_back("Set-Cookie", "auth=; Path=/; Max-Age=0");
  return resp;
}

absl::StatusOr<nlohmann::json> Me(MasterContext& ctx, const HttpRequest& req) {
  if (!req.principal->allocation_id.empty()) {
    return absl::InvalidArgumentError("an allocation token does not belong to a user");
  }
  ASSIGN_OR_RETURN(api::User user, ctx.store.GetUser(req.principal->user_id));
  return nlohmann::json{{"user", api::ToJson(user)}};
}

}  // namespace

void RegisterAuthRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/auth/login", Access::kPublic,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyResponse(r, LoginResponse(ctx, req)); });
  router.Add("POST", "/api/v1/auth/logout", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyResponse(r, Logout(ctx, req)); });
  auto me = [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, Me(ctx, req)); };
  router.Add("GET", "/api/v1/me", Access::kAuthenticated, me);
  router.Add("GET", "/api/v1/auth/user", Access::kAuthenticated, me);
}

}  // namespace det::master

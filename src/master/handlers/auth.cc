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

}  // namespace

void RegisterAuthRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/auth/login", Access::kPublic, [&ctx](HttpRequest& req, ResponderPtr r) {
    std::string token;
    absl::StatusOr<nlohmann::json> result = Login(ctx, req, &token);
    if (!result.ok()) return ReplyError(r, result.status());
    HttpResponse resp = JsonResponse(200, DumpJson(*result));
    resp.headers.emplace_back("Set-Cookie", "auth=" + token + "; Path=/; HttpOnly; Max-Age=604800");
    r->Send(std::move(resp));
  });
  router.Add("POST", "/api/v1/auth/logout", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    if (!req.principal->allocation_id.empty()) {
      return ReplyError(r, absl::InvalidArgumentError("cannot log out of an allocation token"));
    }
    if (absl::Status st = ctx.store.DeleteSession(Sha256Hex(req.principal->token)); !st.ok()) return ReplyError(r, st);
    HttpResponse resp = JsonResponse(200, "{}");
    resp.headers.emplace_back("Set-Cookie", "auth=; Path=/; Max-Age=0");
    r->Send(std::move(resp));
  });
  auto me = [&ctx](HttpRequest& req, ResponderPtr r) {
    if (!req.principal->allocation_id.empty()) {
      return ReplyError(r, absl::InvalidArgumentError("an allocation token does not belong to a user"));
    }
    absl::StatusOr<api::User> user = ctx.store.GetUser(req.principal->user_id);
    if (!user.ok()) return ReplyError(r, user.status());
    ReplyJson(r, {{"user", api::ToJson(*user)}});
  };
  router.Add("GET", "/api/v1/me", Access::kAuthenticated, me);
  router.Add("GET", "/api/v1/auth/user", Access::kAuthenticated, me);
}

}  // namespace det::master

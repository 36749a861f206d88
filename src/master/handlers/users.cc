// Users (reference §1a): list, get, create, set password, patch. Only admins manage users; a user
// may change their own display name and password.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/handlers/user_requests.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<json> ListUsers(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(UserListQuery q, ParseUserListQuery(req));
  if (q.offset < 0) {
    UserFilter count_only = q.filter;
    count_only.limit = 1;
    ASSIGN_OR_RETURN(UserPage probe, ctx.store.ListUsers(count_only));
    q.filter.offset = std::max<int64_t>(0, probe.total + q.offset);
  } else {
    q.filter.offset = q.offset;
  }
  ASSIGN_OR_RETURN(UserPage page, ctx.store.ListUsers(q.filter));
  json users = json::array();
  for (const api::User& u : page.users) users.push_back(api::ToJson(u));
  return json{{"users", users},
              {"pagination", Pagination(q.filter.offset, q.filter.limit,
                                        static_cast<int64_t>(page.users.size()), page.total)}};
}

absl::StatusOr<json> PostUser(MasterContext& ctx, const HttpRequest& req) {
  RETURN_IF_ERROR(CheckAdmin(*req.principal, "create users"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(api::User user, ParseNewUser(body));
  ASSIGN_OR_RETURN(api::User created, ctx.store.InsertUser(user));
  return json{{"user", api::ToJson(created)}};
}

// Upstream's body is the bare JSON string (the client-side hashed form); {"password": ...} is
// accepted too.
absl::StatusOr<json> SetUserPassword(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "user_id"));
  ASSIGN_OR_RETURN(json body, ParseJson(req.body.empty() ? std::string("\"\"") : req.body));
  std::string password;
  bool is_hashed = true;
  if (body.is_string()) {
    password = body.get<std::string>();
  } else if (body.is_object() && api::FindField(body, "password") != nullptr &&
             api::FindField(body, "password")->is_string()) {
    password = api::StringField(body, "password");
    const json* h = api::FindField(body, "is_hashed");
    is_hashed = h == nullptr || !h->is_boolean() || h->get<bool>();
  } else {
    return absl::InvalidArgumentError("the body must be the new password as a JSON string");
  }
  UserPatch patch;
  ASSIGN_OR_RETURN(patch.password_hash, StoredPasswordHash(password, is_hashed));
  RETURN_IF_ERROR(CheckCanPatchUser(*req.principal, id, patch));
  ASSIGN_OR_RETURN(api::User user, ctx.store.UpdateUser(id, patch));
  return json{{"user", api::ToJson(user)}};
}

absl::StatusOr<json> PatchUser(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(int64_t id, PathId(req, "user_id"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(UserPatch patch, ParseUserPatch(body));
  RETURN_IF_ERROR(CheckCanPatchUser(*req.principal, id, patch));
  ASSIGN_OR_RETURN(api::User user, ctx.store.UpdateUser(id, patch));
  // A deactivated user's sessions end now (the authenticator refuses inactive users anyway).
  if (patch.active && !*patch.active) RETURN_IF_ERROR(ctx.store.DeleteUserSessions(id));
  return json{{"user", api::ToJson(user)}};
}

}  // namespace

void RegisterUserRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/users", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListUsers(ctx, req)); });
  router.Add("POST", "/api/v1/users", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PostUser(ctx, req)); });
  router.Add("GET", "/api/v1/users/{user_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, [&]() -> absl::StatusOr<json> {
                 ASSIGN_OR_RETURN(int64_t id, PathId(req, "user_id"));
                 ASSIGN_OR_RETURN(api::User user, ctx.store.GetUser(id));
                 return json{{"user", api::ToJson(user)}};
               }());
             });
  router.Add("GET", "/api/v1/users/{username}/by-username", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, [&]() -> absl::StatusOr<json> {
                 ASSIGN_OR_RETURN(api::User user, ctx.store.GetUserByName(req.path_params["username"]));
                 return json{{"user", api::ToJson(user)}};
               }());
             });
  router.Add("POST", "/api/v1/users/{user_id}/password", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, SetUserPassword(ctx, req)); });
  router.Add("PATCH", "/api/v1/users/{user_id}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, PatchUser(ctx, req)); });
}

}  // namespace det::master

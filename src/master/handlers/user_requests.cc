#include "master/handlers/user_requests.h"

#include "master/handlers/handler_util.h"

#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "common/crypto.h"
#include "common/status_macros.h"
#include "master/agent_user_group.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<UserSort> ParseUserSort(const std::string& raw) {
  static const std::map<std::string, std::pair<int, UserSort>> names = {
      {"UNSPECIFIED", {0, UserSort::kId}},     {"DISPLAY_NAME", {1, UserSort::kDisplayName}},
      {"USER_NAME", {2, UserSort::kUsername}}, {"ADMIN", {3, UserSort::kAdmin}},
      {"ACTIVE", {4, UserSort::kActive}},      {"MODIFIED_TIME", {5, UserSort::kModifiedTime}},
      {"NAME", {6, UserSort::kUsername}},      {"LAST_AUTH_TIME", {7, UserSort::kId}},
      {"REMOTE", {8, UserSort::kId}},
  };
  int n = -1;
  bool numeric = absl::SimpleAtoi(raw, &n);
  absl::string_view v = raw;
  absl::ConsumePrefix(&v, "SORT_BY_");
  for (const auto& [name, entry] : names) {
    if (numeric ? entry.first == n : name == v) return entry.second;
  }
  return absl::InvalidArgumentError(absl::StrCat("sortBy: unknown user sort key \"", raw, "\""));
}

absl::StatusOr<std::optional<std::string>> OptString(const json& obj, const std::string& name) {
  const json* v = api::FindField(obj, name);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string())
    return absl::InvalidArgumentError(absl::StrCat(api::ToLowerCamel(name), ": expected a string"));
  return std::optional<std::string>(v->get<std::string>());
}

absl::StatusOr<std::optional<bool>> OptBool(const json& obj, const std::string& name) {
  const json* v = api::FindField(obj, name);
  if (v == nullptr || v->is_null()) return std::optional<bool>();
  if (!v->is_boolean())
    return absl::InvalidArgumentError(
        absl::StrCat(api::ToLowerCamel(name), ": expected true or false"));
  return std::optional<bool>(v->get<bool>());
}

absl::Status ValidateUsername(const std::string& name) {
  if (absl::StripAsciiWhitespace(name).empty())
    return absl::InvalidArgumentError("username must not be empty");
  for (char c : name) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat("username \"", name, "\" must not contain whitespace"));
    }
  }
  if (name.size() > 128)
    return absl::InvalidArgumentError("username must be at most 128 characters");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<UserListQuery> ParseUserListQuery(const HttpRequest& request) {
  UserListQuery q;
  q.filter.name_contains = request.Query("name").value_or("");
  ASSIGN_OR_RETURN(q.filter.active, QueryOptionalBool(request, "active"));
  ASSIGN_OR_RETURN(q.filter.admin, QueryOptionalBool(request, "admin"));
  ASSIGN_OR_RETURN(q.filter.sort,
                   ParseUserSort(request.Query("sort_by").value_or("SORT_BY_UNSPECIFIED")));
  ASSIGN_OR_RETURN(q.filter.descending, QueryOrderDescending(request));
  ASSIGN_OR_RETURN(q.offset, QueryInt(request, "offset", 0));
  ASSIGN_OR_RETURN(q.filter.limit, QueryInt(request, "limit", 0));
  if (q.filter.limit < 0) return absl::InvalidArgumentError("limit: must be >= 0");
  return q;
}

absl::StatusOr<std::optional<std::string>> StoredPasswordHash(const std::string& password,
                                                              bool is_hashed) {
  std::string hashed = is_hashed ? password : ClientSidePasswordHash(password);
  if (hashed.empty()) return std::optional<std::string>();
  ASSIGN_OR_RETURN(std::string bcrypt, BcryptHash(hashed));
  return std::optional<std::string>(std::move(bcrypt));
}

absl::StatusOr<api::User> ParseNewUser(const json& body) {
  const json* user = api::FindField(body, "user");
  if (user == nullptr || !user->is_object()) {
    return absl::InvalidArgumentError(
        "user is required: {\"user\": {\"username\": ...}, \"password\": ...}");
  }
  api::User u;
  u.username = api::StringField(*user, "username");
  RETURN_IF_ERROR(ValidateUsername(u.username));
  ASSIGN_OR_RETURN(std::optional<bool> admin, OptBool(*user, "admin"));
  ASSIGN_OR_RETURN(std::optional<bool> active, OptBool(*user, "active"));
  ASSIGN_OR_RETURN(std::optional<std::string> display, OptString(*user, "display_name"));
  ASSIGN_OR_RETURN(std::optional<bool> remote, OptBool(*user, "remote"));
  if (remote.value_or(false))
    return absl::UnimplementedError("remote (SSO) users are not supported");
  u.admin = admin.value_or(false);
  u.active = active.value_or(true);
  u.display_name = display.value_or("");
  ASSIGN_OR_RETURN(std::optional<std::string> group, AgentUserGroupField(*user));
  u.agent_user_group_json = group.value_or("");
  ASSIGN_OR_RETURN(std::optional<std::string> password, OptString(body, "password"));
  ASSIGN_OR_RETURN(std::optional<bool> is_hashed, OptBool(body, "is_hashed"));
  ASSIGN_OR_RETURN(u.password_hash,
                   StoredPasswordHash(password.value_or(""), is_hashed.value_or(false)));
  return u;
}

absl::StatusOr<UserPatch> ParseUserPatch(const json& body) {
  UserPatch p;
  ASSIGN_OR_RETURN(p.username, OptString(body, "username"));
  if (p.username) RETURN_IF_ERROR(ValidateUsername(*p.username));
  ASSIGN_OR_RETURN(p.display_name, OptString(body, "display_name"));
  ASSIGN_OR_RETURN(p.admin, OptBool(body, "admin"));
  ASSIGN_OR_RETURN(p.active, OptBool(body, "active"));
  ASSIGN_OR_RETURN(p.agent_user_group_json, AgentUserGroupField(body));
  ASSIGN_OR_RETURN(std::optional<bool> remote, OptBool(body, "remote"));
  if (remote.value_or(false))
    return absl::UnimplementedError("remote (SSO) users are not supported");
  ASSIGN_OR_RETURN(std::optional<std::string> password, OptString(body, "password"));
  if (password) {
    ASSIGN_OR_RETURN(std::optional<bool> is_hashed, OptBool(body, "is_hashed"));
    ASSIGN_OR_RETURN(std::optional<std::string> hash,
                     StoredPasswordHash(*password, is_hashed.value_or(false)));
    p.password_hash = hash;
  }
  return p;
}

absl::Status CheckAdmin(const Principal& who, const std::string& what) {
  return DefaultAuthz().CheckCluster(who, rbac::Permission::kAdministrateUser, what);
}

absl::Status CheckCanPatchUser(const Principal& who, int64_t target_user_id,
                               const UserPatch& patch) {
  RETURN_IF_ERROR(RequireUserToken(who, "change users"));
  if (who.admin) return absl::OkStatus();
  if (who.user_id != target_user_id) {
    return absl::PermissionDeniedError(
        absl::StrCat("user ", who.username, " is not an admin and cannot change other users"));
  }
  if (patch.username || patch.admin || patch.active || patch.agent_user_group_json) {
    return absl::PermissionDeniedError(
        absl::StrCat("user ", who.username,
                     " is not an admin: only admins can change usernames, admin or active flags and agent user "
                     "groups"));
  }
  return absl::OkStatus();
}

}  // namespace det::master

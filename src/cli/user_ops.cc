#include "cli/user_ops.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/format.h"
#include "cli/prompt.h"
#include "cli/session.h"
#include "cli/table.h"
#include "client/rest_client.h"
#include "common/crypto.h"

namespace det::cli {

absl::StatusOr<int> UserLogin(CommandContext& ctx, const std::optional<std::string>& username,
                              std::ostream& out) {
  (void)out;  // upstream prints nothing on success
  std::string user = username.value_or(ctx.User());
  if (user.empty()) {
    absl::StatusOr<std::string> answer = ReadLine("Username: ");
    if (!answer.ok()) return answer.status();
    user = *answer;
  }
  if (user.empty()) return absl::InvalidArgumentError("no username given");
  std::string password;
  if (const char* env = std::getenv("DET_PASS"); env != nullptr) {
    password = env;
  } else {
    absl::StatusOr<std::string> answer =
        ReadPassword(absl::StrCat("Password for user '", user, "': "));
    if (!answer.ok()) return answer.status();
    password = *answer;
  }
  if (absl::Status s = ctx.session().LoginAs(user, password); !s.ok()) return s;
  return 0;
}

absl::StatusOr<int> UserLogout(CommandContext& ctx, std::ostream& out) {
  (void)out;
  if (absl::Status s = ctx.session().Logout(); !s.ok()) return s;
  return 0;
}

absl::StatusOr<int> UserWhoami(CommandContext& ctx, std::ostream& out) {
  absl::StatusOr<nlohmann::json> me = ctx.session().Get("/api/v1/me");
  if (!me.ok()) return me.status();
  std::string name;
  if (auto it = me->find("user"); it != me->end()) name = Str(*it, "username");
  if (name.empty()) name = Str(*me, "username");
  out << "You are logged in as user '" << name << "'\n";
  return 0;
}

namespace {

using nlohmann::json;

// GET /api/v1/users/{name}/by-username -> the user's id.
absl::StatusOr<int64_t> UserId(Session& session, const std::string& username) {
  absl::StatusOr<json> resp =
      session.Get(absl::StrCat("/api/v1/users/", client::UrlEncode(username), "/by-username"));
  if (!resp.ok()) return resp.status();
  const json user = resp->value("user", json::object());
  if (!user.contains("id") || !user["id"].is_number_integer()) {
    return absl::InternalError(
        absl::StrCat("the master's answer for user '", username, "' has no id"));
  }
  return user["id"].get<int64_t>();
}

absl::StatusOr<int> PatchUser(Session& session, const std::string& username, const json& patch) {
  absl::StatusOr<int64_t> id = UserId(session, username);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Patch(absl::StrCat("/api/v1/users/", *id), patch);
  if (!resp.ok()) return resp.status();
  return 0;
}

std::string PyBool(const json& user, const char* key) {
  return user.value(key, false) ? "True" : "False";
}

}  // namespace

absl::StatusOr<int> CreateUser(Session& session, const CreateUserArgs& args, std::ostream& out) {
  (void)out;
  json body = {{"user", {{"username", args.username}, {"admin", args.admin}, {"active", true}}},
               {"password", ClientSidePasswordHash(args.password.value_or(""))},
               {"isHashed", true}};
  absl::StatusOr<json> resp = session.Post("/api/v1/users", body);
  if (!resp.ok()) return resp.status();
  return 0;
}

absl::StatusOr<int> ListUsers(Session& session, bool as_json, std::ostream& out) {
  absl::StatusOr<json> resp = session.Get("/api/v1/users?sortBy=SORT_BY_USER_NAME");
  if (!resp.ok()) return resp.status();
  json users = resp->value("users", json::array());
  if (as_json) {
    out << users.dump(2) << "\n";
    return 0;
  }
  Table table({"Username", "Display Name", "Admin", "Active", "Remote"});
  for (const json& u : users) {
    table.AddRow({Str(u, "username"), Str(u, "displayName"), PyBool(u, "admin"),
                  PyBool(u, "active"), PyBool(u, "remote")});
  }
  out << table.Render();
  return 0;
}

absl::StatusOr<int> SetUserActive(Session& session, const std::string& username, bool active,
                                  std::ostream& out) {
  (void)out;
  return PatchUser(session, username, {{"active", active}});
}

absl::StatusOr<int> ChangeUserPassword(Session& session, const std::string& username,
                                       const std::string& plain_password, std::ostream& out) {
  (void)out;
  std::string name = username;
  if (name.empty()) {
    if (absl::Status s = session.EnsureLoggedIn(); !s.ok()) return s;
    name = session.username();
  }
  absl::StatusOr<int64_t> id = UserId(session, name);
  if (!id.ok()) return id.status();
  absl::StatusOr<json> resp = session.Post(absl::StrCat("/api/v1/users/", *id, "/password"),
                                           json(ClientSidePasswordHash(plain_password)));
  if (!resp.ok()) return resp.status();
  return 0;
}

absl::StatusOr<int> LinkWithAgentUser(Session& session, const std::string& username, const AgentUserGroupArgs& group,
                                      std::ostream& out) {
  (void)out;
  return PatchUser(session, username, {{"agentUserGroup", AgentUserGroupJson(group)}});
}

absl::StatusOr<int> RenameUser(Session& session, const std::string& username,
                               const std::string& new_name, std::ostream& out) {
  (void)out;
  return PatchUser(session, username, {{"username", new_name}});
}

absl::StatusOr<int> EditUser(Session& session, const std::string& username,
                             const std::optional<std::string>& display_name, std::ostream& out) {
  (void)out;
  json patch = json::object();
  if (display_name) patch["displayName"] = *display_name;
  if (patch.empty()) return absl::InvalidArgumentError("nothing to change: give --display-name");
  return PatchUser(session, username, patch);
}

}  // namespace det::cli

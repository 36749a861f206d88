#pragma once
// `det user login|logout|whoami`.
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/agent_user_group_args.h"

namespace det::cli {

class CommandContext;

// Username: the argument, else -u/$DET_USER, else asked for. Password: $DET_PASS when set, else
// asked for (no echo on a terminal; one stdin line otherwise). Caches the token for the master.
absl::StatusOr<int> UserLogin(CommandContext& ctx, const std::optional<std::string>& username,
                              std::ostream& out);
absl::StatusOr<int> UserLogout(CommandContext& ctx, std::ostream& out);
// GET /api/v1/me: "You are logged in as user 'NAME'".
absl::StatusOr<int> UserWhoami(CommandContext& ctx, std::ostream& out);

}  // namespace det::cli

namespace det::cli {

class Session;

// `det user create NAME [--admin] [--password P]`: POST /api/v1/users with the client-side hashed
// password (none = blank password). Prints nothing, like upstream.
struct CreateUserArgs {
  std::string username;
  bool admin = false;
  std::optional<std::string> password;  // plain text
};
absl::StatusOr<int> CreateUser(Session& session, const CreateUserArgs& args, std::ostream& out);

// `det user list [--json]`: every user; table columns Username, Display Name, Admin, Active,
// Remote.
absl::StatusOr<int> ListUsers(Session& session, bool json, std::ostream& out);

// `det user activate|deactivate NAME`: PATCH /api/v1/users/{id} {"active": ...}.
absl::StatusOr<int> SetUserActive(Session& session, const std::string& username, bool active,
                                  std::ostream& out);

// `det user change-password [NAME]`: POST /api/v1/users/{id}/password with the SHA-512 client-side
// form of `plain_password` as the body, as upstream's CLI sends it. `username` "" = the logged-in
// user.
absl::StatusOr<int> ChangeUserPassword(Session& session, const std::string& username,
                                       const std::string& plain_password, std::ostream& out);

// `det user rename OLD NEW` and `det user edit NAME --display-name D`: PATCH /api/v1/users/{id}.
absl::StatusOr<int> RenameUser(Session& session, const std::string& username,
                               const std::string& new_name, std::ostream& out);
absl::StatusOr<int> EditUser(Session& session, const std::string& username,
                             const std::optional<std::string>& display_name, std::ostream& out);

// `det user link-with-agent-user NAME --agent-uid U --agent-gid G --agent-user N --agent-group M`:
// PATCH /api/v1/users/{id} {"agentUserGroup": ...}: the user's tasks run as that OS user and group
// where their workspace names none.
absl::StatusOr<int> LinkWithAgentUser(Session& session, const std::string& username, const AgentUserGroupArgs& group,
                                      std::ostream& out);

}  // namespace det::cli

#include "cli/user_ops.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/format.h"
#include "cli/prompt.h"
#include "cli/session.h"

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

}  // namespace det::cli

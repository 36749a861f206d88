#pragma once
// `det user login|logout|whoami`.
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

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

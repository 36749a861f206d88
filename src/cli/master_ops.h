#pragma once
// `det master config|info|logs`.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

class CommandContext;

enum class MasterOutput { kYaml, kJson };

// GET /api/v1/master/config: the master's effective configuration, secrets masked by the master.
// YAML by default, like upstream.
absl::StatusOr<int> MasterConfig(CommandContext& ctx, MasterOutput format, std::ostream& out);
// GET /api/v1/master: version, ids, cluster name.
absl::StatusOr<int> MasterInfo(CommandContext& ctx, MasterOutput format, std::ostream& out);
// `det version`: this client's version, the master's address and its info (GET /api/v1/master). A
// master that cannot be reached is a warning on `err`; the client's part is printed anyway (exit 0), as
// upstream's does.
absl::StatusOr<int> Version(CommandContext& ctx, MasterOutput format, std::ostream& out, std::ostream& err);
// GET /api/v1/master/logs: the master's recent lines ("TIMESTAMP [LEVEL]: MESSAGE"), only the last
// `tail` when given, and with `follow` new ones as they come until interrupted.
absl::StatusOr<int> MasterLogs(CommandContext& ctx, bool follow, std::optional<int> tail,
                               std::ostream& out);
// One MasterLogs stream result as a line: "TIMESTAMP [LEVEL]: MESSAGE\n".
std::string MasterLogLine(const nlohmann::json& result);

}  // namespace det::cli

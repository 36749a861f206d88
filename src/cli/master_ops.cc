#include "cli/master_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/command_context.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "common/json_yaml.h"
#include "common/version.h"

namespace det::cli {
namespace {

void Print(const nlohmann::json& value, MasterOutput format, std::ostream& out) {
  if (format == MasterOutput::kJson) {
    out << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    out << ToYaml(value);
  }
}

}  // namespace

absl::StatusOr<int> MasterConfig(CommandContext& ctx, MasterOutput format, std::ostream& out) {
  absl::StatusOr<nlohmann::json> resp = ctx.session().Get("/api/v1/master/config");
  if (!resp.ok()) return resp.status();
  auto it = resp->find("config");
  if (it == resp->end()) return absl::InternalError("the master's answer has no \"config\"");
  Print(*it, format, out);
  return 0;
}

absl::StatusOr<int> MasterInfo(CommandContext& ctx, MasterOutput format, std::ostream& out) {
  absl::StatusOr<nlohmann::json> resp = ctx.session().Get("/api/v1/master");
  if (!resp.ok()) return resp.status();
  Print(*resp, format, out);
  return 0;
}

absl::StatusOr<int> Version(CommandContext& ctx, MasterOutput format, std::ostream& out, std::ostream& err) {
  nlohmann::json version = {{"client", {{"version", kVersion}}}, {"master_address", ctx.MasterUrl()}};
  absl::StatusOr<nlohmann::json> master = ctx.session().Get("/api/v1/master");
  if (master.ok()) {
    version["master"] = *std::move(master);
  } else {
    version["master"] = nlohmann::json::object();
    err << "Warning: " << master.status().message() << "\n";
  }
  Print(version, format, out);
  return 0;
}

absl::StatusOr<int> MasterLogs(CommandContext& ctx, bool follow, std::optional<int> tail,
                               std::ostream& out) {
  if (tail && *tail < 0) return absl::InvalidArgumentError("--tail must be >= 0");
  std::string path = "/api/v1/master/logs";
  if (tail) path = AddQuery(path, "offset", std::to_string(-*tail));
  if (follow) path = AddQuery(path, "follow", "true");
  if (tail && *tail == 0 && !follow) return 0;
  absl::Status s = ctx.session().Stream(path, [&out](const nlohmann::json& result) {
    out << MasterLogLine(result);
    out.flush();
    return true;
  });
  if (!s.ok()) return s;
  return 0;
}

std::string MasterLogLine(const nlohmann::json& result) {
  const nlohmann::json& entry = result.value("logEntry", nlohmann::json::object());
  std::string level(absl::StripPrefix(entry.value("level", ""), "LOG_LEVEL_"));
  return absl::StrCat(entry.value("timestamp", ""), " [", level, "]: ", entry.value("message", ""), "\n");
}

}  // namespace det::cli

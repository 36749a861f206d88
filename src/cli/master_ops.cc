#include "cli/master_ops.h"

#include <nlohmann/json.hpp>

#include "cli/command_context.h"
#include "cli/session.h"
#include "common/json_yaml.h"

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

}  // namespace det::cli

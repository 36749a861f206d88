#include "cli/resource_pool_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "cli/agent_ops.h"
#include "cli/format.h"
#include "cli/paging.h"

namespace det::cli {

using nlohmann::json;

std::string SchedulerName(const std::string& scheduler_type) {
  std::string s = scheduler_type;
  if (absl::StartsWith(s, "SCHEDULER_TYPE_")) s = s.substr(15);
  return absl::AsciiStrToLower(s);
}

Table ResourcePoolTable(const json& pools) {
  Table t({"resource pool", "Num of Agents", "Slots per Agent", "Slots Available", "Slot Used",
           "Default Compute Pool", "Default Aux Pool", "Scheduler"});
  if (!pools.is_array()) return t;
  for (const json& p : pools) {
    t.AddRow({Str(p, "name"), Cell(Field(p, "numAgents")), Cell(Field(p, "slotsPerAgent")),
              Cell(Field(p, "slotsAvailable")), Cell(Field(p, "slotsUsed")),
              BoolCell(Field(p, "defaultComputePool")), BoolCell(Field(p, "defaultAuxPool")),
              SchedulerName(Str(p, "schedulerType"))});
  }
  return t;
}

absl::StatusOr<int> ListResourcePools(Session& session, OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> pools = GetAllPages(session, "/api/v1/resource-pools", "resourcePools");
  if (!pools.ok()) return pools.status();
  if (format == OutputFormat::kJson) {
    out << pools->dump(4) << "\n";
  } else {
    out << Render(ResourcePoolTable(*pools), format);
  }
  return 0;
}

}  // namespace det::cli

#pragma once
// `det agent list|enable|disable` and `det slot list` (reference §1f). Each returns the process
// exit code, or an error for main() to print as "Error: <message>".
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

// Table: Agent ID, Version, Registered Time, Slots, Containers, Resource Pool, Enabled, Draining,
// Addresses. --json: the same rows as objects (id, version, registered_time, num_slots,
// num_containers, resource_pools, enabled, draining, addresses), as upstream prints them.
absl::StatusOr<int> ListAgents(Session& session, OutputFormat format, std::ostream& out);

// Table: Agent ID, Resource Pool, Slot ID, Enabled, Draining, Allocation ID (FREE when idle),
// Task Name, Type, Device; --json: the rows as objects (agent_id, resource_pool, slot_id, ...).
absl::StatusOr<int> ListSlots(Session& session, OutputFormat format, std::ostream& out);

// POST /api/v1/agents/{id}/enable or .../disable (with {"drain": true} when draining), for one
// agent or, with `all`, every connected agent. Prints "Enabled agent X." / "Disabled agent X.";
// when draining, whether tasks are still running on the drained agents.
struct SetAgentArgs {
  std::string agent_id;  // "" with `all`
  bool all = false;
  bool enabled = true;
  bool drain = false;
};
absl::StatusOr<int> SetAgentEnabled(Session& session, const SetAgentArgs& args, std::ostream& out);

// `det slot enable|disable AGENT_ID SLOT_ID`: POST /api/v1/agents/{a}/slots/{s}/enable|disable.
absl::StatusOr<int> SetSlotEnabled(Session& session, const std::string& agent_id, int slot_id, bool enabled,
                                   std::ostream& out);

// Exposed for tests: the rows of the two lists from GET /api/v1/agents `agents`, and (for slots)
// allocation id -> task name.
nlohmann::json AgentRows(const nlohmann::json& agents);
Table AgentTable(const nlohmann::json& rows);
nlohmann::json SlotRows(const nlohmann::json& agents, const nlohmann::json& task_names);
Table SlotTable(const nlohmann::json& rows);

// "True" / "False", as upstream's Python tables print booleans.
std::string BoolCell(const nlohmann::json& value);

}  // namespace det::cli

#pragma once
// `det resource-pool list` (alias rp): GET /api/v1/resource-pools.
#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"
#include "cli/table.h"

namespace det::cli {

class Session;

// Table (upstream's columns): resource pool, Num of Agents, Slots per Agent, Slots Available, Slot
// Used, Default Compute Pool, Default Aux Pool, plus Scheduler. --json: the pools as the master
// returns them.
absl::StatusOr<int> ListResourcePools(Session& session, OutputFormat format, std::ostream& out);

// `det resource-pool bindings list [POOL]`: each pool (or POOL) with the workspaces bound to it.
absl::StatusOr<int> ListPoolBindings(Session& session, const std::string& pool, OutputFormat format,
                                     std::ostream& out);
// `det resource-pool bindings add|remove POOL WS...`: binds or unbinds the workspaces named.
absl::StatusOr<int> ChangePoolBindings(Session& session, const std::string& pool,
                                       const std::vector<std::string>& workspaces, bool bind, std::ostream& out);

// Exposed for tests.
Table ResourcePoolTable(const nlohmann::json& pools);

// "SCHEDULER_TYPE_FAIR_SHARE" -> "fair_share".
std::string SchedulerName(const std::string& scheduler_type);

}  // namespace det::cli

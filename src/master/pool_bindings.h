#pragma once
// Which resource pools a workspace's work may use (upstream's workspace bindings): a pool bound to
// workspaces serves only them; an unbound pool serves every workspace. The master's default pools are
// never bound, so that work which names no pool always has one.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "config/master_config.h"
#include "master/db/workspace_store.h"

namespace det::master {

// The pools of `pools` (in that order) that `workspace_id` may use.
std::vector<std::string> PoolsAvailableTo(const std::vector<std::string>& pools,
                                          const std::vector<PoolBinding>& bindings, int64_t workspace_id);

// InvalidArgument naming the pools it may use unless `pool` is one of them ("" = the default pool:
// always available).
absl::Status CheckPoolAvailable(const std::vector<std::string>& pools, const std::vector<PoolBinding>& bindings,
                                const Workspace& workspace, const std::string& pool);

// The cluster's pools, in the configuration's order.
std::vector<std::string> PoolNames(const config::MasterConfig& master);

// CheckPoolAvailable with the cluster's pools and the bindings as stored.
absl::Status CheckPoolAvailable(WorkspaceStore& store, const config::MasterConfig& master, const Workspace& workspace,
                                const std::string& pool);

// A pool that may be bound: one of `pools`, and not one of `default_pools`.
absl::Status CheckBindable(const std::string& pool, const std::vector<std::string>& pools,
                           const std::vector<std::string>& default_pools);

}  // namespace det::master

#include "master/pool_bindings.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::master {

std::vector<std::string> PoolsAvailableTo(const std::vector<std::string>& pools,
                                          const std::vector<PoolBinding>& bindings, int64_t workspace_id) {
  std::vector<std::string> out;
  for (const std::string& pool : pools) {
    bool bound = false, bound_here = false;
    for (const PoolBinding& b : bindings) {
      if (b.pool != pool) continue;
      bound = true;
      bound_here = bound_here || b.workspace_id == workspace_id;
    }
    if (!bound || bound_here) out.push_back(pool);
  }
  return out;
}

absl::Status CheckPoolAvailable(const std::vector<std::string>& pools, const std::vector<PoolBinding>& bindings,
                                const Workspace& workspace, const std::string& pool) {
  if (pool.empty()) return absl::OkStatus();
  std::vector<std::string> available = PoolsAvailableTo(pools, bindings, workspace.id);
  if (std::find(available.begin(), available.end(), pool) != available.end()) return absl::OkStatus();
  if (std::find(pools.begin(), pools.end(), pool) == pools.end()) return absl::OkStatus();  // the scheduler says
  return absl::InvalidArgumentError(absl::StrCat("resources.resource_pool: pool \"", pool,
                                                 "\" is bound to other workspaces; workspace ", workspace.name,
                                                 " may use: ", absl::StrJoin(available, ", ")));
}

std::vector<std::string> PoolNames(const config::MasterConfig& master) {
  std::vector<std::string> names;
  for (const config::ResourcePoolConfig& p : master.resource_pools) names.push_back(p.pool_name);
  return names;
}

absl::Status CheckPoolAvailable(WorkspaceStore& store, const config::MasterConfig& master, const Workspace& workspace,
                                const std::string& pool) {
  absl::StatusOr<std::vector<PoolBinding>> bindings = store.ListPoolBindings();
  if (!bindings.ok()) return bindings.status();
  return CheckPoolAvailable(PoolNames(master), *bindings, workspace, pool);
}

absl::Status CheckBindable(const std::string& pool, const std::vector<std::string>& pools,
                           const std::vector<std::string>& default_pools) {
  if (std::find(pools.begin(), pools.end(), pool) == pools.end()) {
    return absl::NotFoundError(absl::StrCat("resource pool \"", pool, "\" not found (the pools: ",
                                            absl::StrJoin(pools, ", "), ")"));
  }
  if (std::find(default_pools.begin(), default_pools.end(), pool) != default_pools.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "resource pool \"", pool, "\" is a default pool: work that names no pool runs there, so it is not bound"));
  }
  return absl::OkStatus();
}

}  // namespace det::master

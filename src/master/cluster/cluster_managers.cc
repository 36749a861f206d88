// The cluster actor and its resource managers: agents connecting to the manager of their pool, and
// the events a manager sends back (placed, resources wanted back, started, exited).
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

absl::StatusOr<WebSocketHandlers> Cluster::ConnectAgent(AgentIdentity identity,
                                                        std::shared_ptr<WebSocketConnection> connection) {
  if (identity.resource_pool.empty()) identity.resource_pool = options_.default_compute_pool;
  // manager_of_pool_ is set once, by the constructor: read here, off the loop, without a race.
  ResourceManager* manager = ManagerOf(identity.resource_pool);
  if (manager == nullptr) {
    std::vector<std::string> names;
    for (const auto& [name, owner] : manager_of_pool_) names.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat("agent ", identity.id, ": the master has no resource pool named \"",
                                                   identity.resource_pool, "\" (its pools: ", absl::StrJoin(names, ", "),
                                                   ")"));
  }
  return manager->ConnectAgent(std::move(identity), std::move(connection));
}

Cluster::LiveAllocation* Cluster::ManagerEvents::Find(const std::string& allocation_id) const {
  auto a = cluster_.allocations_.find(allocation_id);
  return a == cluster_.allocations_.end() ? nullptr : a->second.get();
}

JobAttributes Cluster::ManagerEvents::JobOf(const std::string& allocation_id) const {
  return cluster_.JobOf(*cluster_.allocations_.at(allocation_id));
}

void Cluster::ManagerEvents::Placed(const std::string& allocation_id, const Placement& placement) {
  if (LiveAllocation* alloc = Find(allocation_id)) cluster_.StartAllocation(*alloc, placement);
}

void Cluster::ManagerEvents::ReclaimRequested(const std::string& allocation_id, const std::string& why, bool kill) {
  LiveAllocation* alloc = Find(allocation_id);
  if (alloc == nullptr) return;
  if (!kill) return cluster_.ReleaseAllocation(*alloc, why);
  // Killed now; trials requeue without counting a restart.
  alloc->released = true;
  cluster_.MasterLog(alloc->record.task_id, allocation_id, absl::StrCat(why, "; killing the task's process"));
  cluster_.KillProcesses(*alloc);
}

void Cluster::ManagerEvents::ProcessStarted(const std::string& allocation_id, const std::string& where, int pid) {
  LiveAllocation* alloc = Find(allocation_id);
  if (alloc == nullptr) return;
  alloc->record.state = AllocationState::kRunning;
  alloc->started_processes.emplace_back(where, pid);
  cluster_.SaveAllocation(alloc->record);
  cluster_.MasterLog(alloc->record.task_id, allocation_id, absl::StrCat("Process started on ", where, " (pid ", pid, ")"));
}

void Cluster::ManagerEvents::Exited(const std::string& allocation_id, int exit_code, ExitKind kind,
                                    const std::string& why) {
  if (LiveAllocation* alloc = Find(allocation_id)) cluster_.AllocationEnded(*alloc, exit_code, kind, why);
  cluster_.Schedule();
}

void Cluster::ManagerEvents::Log(const std::string& allocation_id, const std::string& text) {
  if (LiveAllocation* alloc = Find(allocation_id)) cluster_.MasterLog(alloc->record.task_id, allocation_id, text);
}

}  // namespace det::master

#pragma once
// Upstream's resourcepoolv1.ResourcePool (reference §1f) for the master's static pools, and the
// pool lookups shared by the job queue endpoints.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/cluster/cluster.h"

namespace det::master {

struct PoolQueueStats {
  int queued = 0;
  int scheduled = 0;
};

// Every ResourcePool field, with upstream's values for a static (agent) pool: type STATIC,
// location "on-prem", slotsPerAgent -1, the cloud-only fields zero, details.priorityScheduler for
// priority pools. `cluster_name` is the resource manager's name (clusterName).
nlohmann::json ResourcePoolJson(const PoolSummary& pool, const PoolQueueStats& stats,
                                const std::string& cluster_name);

// Queued and scheduled jobs per pool.
PoolQueueStats QueueStatsOf(const std::vector<JobInfo>& jobs, const std::string& pool);

// The pool a request names: "" means the default compute pool. NotFound for an unknown name,
// listing the pools.
absl::StatusOr<std::string> ResolvePoolName(const std::vector<PoolSummary>& pools,
                                            const std::string& requested);

// "SCHEDULER_TYPE_PRIORITY", "SCHEDULER_TYPE_FAIR_SHARE" or "SCHEDULER_TYPE_ROUND_ROBIN".
std::string SchedulerTypeName(scheduler::SchedulerType type);


}  // namespace det::master

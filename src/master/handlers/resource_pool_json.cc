#include "master/handlers/resource_pool_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/schedule.h"

namespace det::master {

using nlohmann::json;

std::string SchedulerTypeName(scheduler::SchedulerType type) {
  // The enum's suffix is the master config's name in upper case: fair_share, SCHEDULER_TYPE_FAIR_SHARE.
  return absl::StrCat("SCHEDULER_TYPE_", absl::AsciiStrToUpper(scheduler::ConfigName(type)));
}

namespace {

// A pool without agents has no slot type yet (upstream: device.ZeroSlot).
std::string SlotTypeName(const PoolSummary& pool) {
  if (pool.num_agents == 0) return "TYPE_UNSPECIFIED";
  if (pool.slot_type == "cuda") return "TYPE_CUDA";
  if (pool.slot_type == "rocm") return "TYPE_ROCM";
  return "TYPE_CPU";
}

}  // namespace

json ResourcePoolJson(const PoolSummary& pool, const PoolQueueStats& stats,
                      const std::string& cluster_name) {
  const scheduler::SchedulerConfig& sched = pool.options.scheduler;
  json priority = nullptr;
  if (sched.type == scheduler::SchedulerType::kPriority) {
    priority = {{"preemption", sched.preemption},
                {"defaultPriority", sched.default_priority},
                {"k8Priorities", json::array()}};
  }
  return {
      {"name", pool.options.name},
      {"description", pool.options.description},
      {"type", "RESOURCE_POOL_TYPE_STATIC"},
      {"numAgents", pool.num_agents},
      {"slotsAvailable", pool.slots_available},
      {"slotsUsed", pool.slots_used},
      {"slotType", SlotTypeName(pool)},
      {"auxContainerCapacity", pool.aux_capacity},
      {"auxContainersRunning", pool.aux_running},
      {"defaultComputePool", pool.default_compute},
      {"defaultAuxPool", pool.default_aux},
      {"preemptible", false},
      {"minAgents", 0},
      {"maxAgents", 0},
      {"slotsPerAgent", -1},
      {"auxContainerCapacityPerAgent", pool.options.max_aux_containers_per_agent},
      {"schedulerType", SchedulerTypeName(sched.type)},
      {"schedulerFittingPolicy", sched.fitting_policy == scheduler::FittingPolicy::kWorst
                                     ? "FITTING_POLICY_WORST"
                                     : "FITTING_POLICY_BEST"},
      {"location", "on-prem"},
      {"imageId", ""},
      {"instanceType", ""},
      {"masterUrl", ""},
      {"masterCertName", ""},
      {"startupScript", ""},
      {"containerStartupScript", ""},
      {"agentDockerNetwork", ""},
      {"agentDockerRuntime", ""},
      {"agentDockerImage", ""},
      {"agentFluentImage", ""},
      {"maxIdleAgentPeriod", 0},
      {"maxAgentStartingPeriod", 0},
      {"details", {{"aws", nullptr}, {"gcp", nullptr}, {"priorityScheduler", priority}}},
      {"accelerator", ""},
      {"stats", {{"queuedCount", stats.queued}, {"scheduledCount", stats.scheduled}}},
      {"resourceManagerMetadata", json::object()},
      {"clusterName", cluster_name},
  };
}

PoolQueueStats QueueStatsOf(const std::vector<JobInfo>& jobs, const std::string& pool) {
  PoolQueueStats s;
  for (const JobInfo& j : jobs) {
    if (j.resource_pool != pool) continue;
    if (j.state == "STATE_QUEUED") {
      ++s.queued;
    } else {
      ++s.scheduled;
    }
  }
  return s;
}

absl::StatusOr<std::string> ResolvePoolName(const std::vector<PoolSummary>& pools,
                                            const std::string& requested) {
  std::vector<std::string> names;
  for (const PoolSummary& p : pools) {
    if (requested.empty() ? p.default_compute : p.options.name == requested) return p.options.name;
    names.push_back(p.options.name);
  }
  if (requested.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the master has no default compute pool; name one of: ", absl::StrJoin(names, ", ")));
  }
  return absl::NotFoundError(absl::StrCat(
      "resource pool \"", requested, "\" not found; the pools are: ", absl::StrJoin(names, ", ")));
}

}  // namespace det::master

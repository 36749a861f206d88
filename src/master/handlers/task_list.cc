// GET /api/v1/tasks (upstream GetTasks): `allocationIdToSummary`, one AllocationSummary per running
// allocation the caller may see, so `det slot list` can name the task that holds each slot; the legacy GET /tasks, the same
// map in snake_case. Allocations come from the agents (cluster actor); their names from the store, read
// off the cluster's loop.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/handlers/agent_json.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/resource_pool_json.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"
#include "scheduler/schedule.h"

namespace det::master {
namespace {

using nlohmann::json;

// allocation id -> (agent id -> the agent's Slot JSON devices it holds), and its pool.
struct RunningAllocation {
  std::map<std::string, json> devices_by_agent;
  std::string resource_pool;
  int slots = 0;
};

std::map<std::string, RunningAllocation> RunningAllocations(
    const std::vector<AgentSummary>& agents) {
  std::map<std::string, RunningAllocation> out;
  for (const AgentSummary& a : agents) {
    for (const api::SlotInfo& s : a.slots) {
      auto used = a.slot_allocations.find(s.id);
      if (used == a.slot_allocations.end()) continue;
      RunningAllocation& r = out[used->second];
      r.resource_pool = a.identity.resource_pool;
      ++r.slots;
      json& devices = r.devices_by_agent[a.identity.id];
      if (devices.is_null()) devices = json::array();
      devices.push_back(SlotJson(a, s)["device"]);
    }
  }
  return out;
}

// What a summary tells of the scheduler: each live job's effective priority, by job id, and each
// pool's scheduler ("priority", ...), by pool name.
struct SchedulingFacts {
  std::map<std::string, int> priorities;
  std::map<std::string, std::string> schedulers;
};

// What the store knows of a running allocation: its task, and where that belongs.
struct AllocationOwner {
  std::string task_id;
  std::string name;
  std::string registered;
  std::string job_id;
  bool trial = false;
  std::optional<int64_t> workspace_id;  // unknown: shown only to those who see every workspace
};

AllocationOwner OwnerOf(Store& store, const std::string& allocation_id) {
  AllocationOwner owner{.name = allocation_id};
  absl::StatusOr<Allocation> alloc = store.GetAllocation(allocation_id);
  if (!alloc.ok()) return owner;
  owner.task_id = alloc->task_id;
  owner.registered = FormatRfc3339(alloc->start_time);
  if (absl::StatusOr<api::Trial> trial = store.GetTrialByTaskId(alloc->task_id); trial.ok()) {
    owner.trial = true;
    owner.name = absl::StrCat("Trial ", trial->id, " (Experiment ", trial->experiment_id, ")");
    if (absl::StatusOr<api::Experiment> exp = store.GetExperiment(trial->experiment_id); exp.ok()) {
      owner.job_id = exp->job_id;
      owner.workspace_id = exp->workspace_id;
    }
  } else if (absl::StatusOr<Task> task = store.GetTask(alloc->task_id); task.ok()) {
    owner.name = task->description;
    owner.job_id = task->job_id;
    owner.workspace_id = task->workspace_id;
  }
  return owner;
}

// Where the caller sees trials (VIEW_EXPERIMENT_METADATA) and other tasks (VIEW_NSC): the allocations it
// is shown (upstream's GetTasks leaves out the others).
struct AllocationSight {
  rbac::Reach trials;
  rbac::Reach tasks;

  bool Sees(const AllocationOwner& owner) const {
    const rbac::Reach& reach = owner.trial ? trials : tasks;
    return reach.everywhere || (owner.workspace_id && reach.Covers(*owner.workspace_id));
  }
};

absl::StatusOr<AllocationSight> SightOf(const Principal& who) {
  AllocationSight sight;
  ASSIGN_OR_RETURN(sight.trials, DefaultAuthz().ReachOf(who, rbac::Permission::kViewExperimentMetadata));
  ASSIGN_OR_RETURN(sight.tasks, DefaultAuthz().ReachOf(who, rbac::Permission::kViewNsc));
  return sight;
}

json SummaryJson(const AllocationOwner& owner, const std::string& allocation_id, const RunningAllocation& running,
                 const SchedulingFacts& facts) {
  const std::string& job_id = owner.job_id;
  json agent_devices = json::object();
  for (const auto& [agent, devices] : running.devices_by_agent)
    agent_devices[agent] = {{"devices", devices}};
  json resources = json::array({{{"resourcesId", allocation_id},
                                 {"resourcesType", "agent"},
                                 {"allocationId", allocation_id},
                                 {"agentDevices", agent_devices},
                                 {"containerId", allocation_id},
                                 {"started", nullptr},
                                 {"exited", nullptr}}});  // running: not exited (an unset message)
  json out = {{"taskId", owner.task_id},
              {"allocationId", allocation_id},
              {"name", owner.name},
              {"registeredTime", owner.registered.empty() ? json(nullptr) : json(owner.registered)},
              {"resourcePool", running.resource_pool},
              {"slotsNeeded", running.slots},
              {"resources", resources},
              {"schedulerType", ""},
              {"proxyPorts", json::array()}};
  if (auto s = facts.schedulers.find(running.resource_pool); s != facts.schedulers.end()) {
    out["schedulerType"] = s->second;
  }
  // `priority` is a proto3 optional: left out when unknown (reference §0.2).
  if (auto p = facts.priorities.find(job_id); !job_id.empty() && p != facts.priorities.end()) {
    out["priority"] = p->second;
  }
  return out;
}

// The legacy echo route's AllocationSummary: the same facts under upstream's Go field names.
json LegacySummaryJson(const json& summary) {
  json resources = json::array();
  for (const json& r : summary["resources"]) {
    resources.push_back({{"resources_id", r["resourcesId"]},
                         {"resources_type", r["resourcesType"]},
                         {"allocation_id", r["allocationId"]},
                         {"agent_devices", r["agentDevices"]},
                         {"container_id", r["containerId"]},
                         {"started", r["started"]},
                         {"exited", r["exited"]}});
  }
  return {{"task_id", summary["taskId"]},
          {"allocation_id", summary["allocationId"]},
          {"name", summary["name"]},
          {"registered_time", summary["registeredTime"]},
          {"resource_pool", summary["resourcePool"]},
          {"slots_needed", summary["slotsNeeded"]},
          {"resources", std::move(resources)},
          {"scheduler_type", summary["schedulerType"]},
          {"priority", summary.value("priority", json())}};
}

// Replies `wrap` of the summary (GetTasks' JSON) of every running allocation `sight` takes in, by
// allocation id.
void ReplyRunningAllocations(MasterContext& ctx, ResponderPtr r, AllocationSight sight, std::function<json(json)> wrap) {
  ctx.cluster.ListAgents([&ctx, r, sight, wrap = std::move(wrap)](std::vector<AgentSummary> agents) {
    auto running = std::make_shared<std::map<std::string, RunningAllocation>>(RunningAllocations(agents));
    auto facts = std::make_shared<SchedulingFacts>();
    ctx.cluster.ListJobs([&ctx, r, sight, wrap, running, facts](std::vector<JobInfo> jobs) {
      for (const JobInfo& j : jobs) facts->priorities[j.job_id] = j.priority;
      ctx.cluster.ListResourcePools([&ctx, r, sight, wrap, running, facts](std::vector<PoolSummary> pools) {
        for (const PoolSummary& p : pools) facts->schedulers[p.options.name] = scheduler::ConfigName(p.options.scheduler.type);
        ctx.stream_loop.Post([&ctx, r, sight, running, facts, wrap] {
          json by_id = json::object();
          for (const auto& [id, alloc] : *running) {
            AllocationOwner owner = OwnerOf(ctx.store, id);
            if (sight.Sees(owner)) by_id[id] = SummaryJson(owner, id, alloc, *facts);
          }
          ReplyJson(r, wrap(std::move(by_id)));
        });
      });
    });
  });
}

}  // namespace

void RegisterTaskListRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/tasks", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    ReplyIfError(r, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(AllocationSight sight, SightOf(*req.principal));
      ReplyRunningAllocations(ctx, r, sight, [](json by_id) { return json{{"allocationIdToSummary", std::move(by_id)}}; });
      return absl::OkStatus();
    }());
  });
  // Upstream's older echo route, which scripts written against earlier releases still call: the map
  // itself, in snake_case.
  router.Add("GET", "/tasks", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    ReplyIfError(r, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(AllocationSight sight, SightOf(*req.principal));
      ReplyRunningAllocations(ctx, r, sight, [](json by_id) {
        for (auto& [id, summary] : by_id.items()) summary = LegacySummaryJson(summary);
        return by_id;
      });
      return absl::OkStatus();
    }());
  });
}

}  // namespace det::master

// Cluster::Observe: the snapshot observers read (cluster_observation.h).
#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"
#include "master/rm/resources_id.h"

namespace det::master {
namespace {

// How ProcessStarted's report names a process's place: "<where> pid <pid>", or `where` alone when
// the manager has no pid (a pod, a Slurm job).
std::string RuntimeId(const std::pair<std::string, int>& started) {
  return started.second > 0 ? absl::StrCat(started.first, " pid ", started.second) : started.first;
}

// The runtime id of the process on `agent_id` among the allocation's started processes: the one
// report of a single process; for a gang, the report whose place ends with the agent's id ("agent
// a1"), since managers name the agent or node a process started on.
std::string RuntimeIdOn(const std::vector<std::pair<std::string, int>>& started,
                        const std::string& agent_id, size_t processes) {
  if (processes == 1) return started.empty() ? "" : RuntimeId(started.front());
  for (const auto& s : started) {
    if (absl::EndsWith(s.first, absl::StrCat(" ", agent_id))) return RuntimeId(s);
  }
  return "";
}

}  // namespace

void Cluster::Observe(std::function<void(ClusterObservation)> done) {
  loop_.Post([this, done = std::move(done)] {
    ClusterObservation out;
    std::map<std::string, int64_t> experiment_of_task;
    for (const auto& [id, trial] : trials_) {
      if (trial->task != nullptr)
        experiment_of_task[trial->task->record.task_id] = trial->trial.experiment_id;
    }
    std::map<std::string, ObservedPool> pools;
    for (const auto& [id, alloc] : allocations_) {
      const Allocation& record = alloc->record;
      if (IsTerminal(record.state)) continue;
      auto task = tasks_.find(record.task_id);
      if (task == tasks_.end()) continue;
      const JobAttributes job = task->second->spec->Job();
      ObservedAllocation a{
          .allocation_id = id,
          .task_id = record.task_id,
          .task_type = std::string(Name(task->second->record.type)),
          .job_id = job.job_id,
          .resource_pool = record.state == AllocationState::kQueued || record.resource_pool.empty()
                               ? job.resource_pool
                               : record.resource_pool,
          .running = record.state != AllocationState::kQueued,
          .slots = record.slots};
      if (auto e = experiment_of_task.find(record.task_id); e != experiment_of_task.end())
        a.experiment_id = e->second;
      if (a.running) {
        const int n = static_cast<int>(record.placements.size());
        for (int rank = 0; rank < n; ++rank) {
          const AgentSlots& placed = record.placements[static_cast<size_t>(rank)];
          ObservedProcess p{.container_id = ResourcesId(id, rank, n),
                            .agent_id = placed.agent_id,
                            .runtime_id = RuntimeIdOn(alloc->started_processes, placed.agent_id,
                                                      record.placements.size())};
          for (const api::SlotInfo& device : placed.devices) {
            if (!device.uuid.empty()) p.gpu_uuids.push_back(device.uuid);
          }
          a.processes.push_back(std::move(p));
        }
      }
      ObservedPool& pool = pools[a.resource_pool];
      ++(a.running ? pool.running_allocations : pool.pending_allocations);
      out.allocations.push_back(std::move(a));
    }
    for (const auto& [id, exp] : experiments_) {
      out.experiments.push_back(
          {.id = id, .job_id = exp->experiment.job_id, .labels = exp->experiment.labels});
    }
    for (const auto& manager : managers_) {
      out.scheduling.Add(manager->Scheduling());
      for (const AgentSummary& agent : manager->Agents()) {
        out.agents.push_back({.id = agent.identity.id,
                              .resource_pool = agent.identity.resource_pool,
                              .address = agent.identity.address});
      }
      for (const PoolSummary& summary : manager->Pools()) {
        if (ManagerOf(summary.options.name) != manager.get())
          continue;  // a repeated name (see ClusterOptions)
        ObservedPool& pool = pools[summary.options.name];
        pool.slot_type = summary.slot_type;
        pool.agents = summary.num_agents;
        pool.slots_total = summary.slots_available;
        pool.slots_used = summary.slots_used;
        pool.aux_capacity = summary.aux_capacity;
        pool.aux_running = summary.aux_running;
      }
      for (const QueuedJobView& job : manager->JobQueue()) {
        if (job.state == "STATE_QUEUED") ++pools[job.resource_pool].queued_jobs;
      }
    }
    std::sort(out.agents.begin(), out.agents.end(),
              [](const ObservedAgent& a, const ObservedAgent& b) { return a.id < b.id; });
    for (auto& [name, pool] : pools) {
      if (name.empty()) continue;  // work whose pool could not be told (none configured)
      pool.name = name;
      if (pool.slot_type.empty()) pool.slot_type = "cpu";
      out.pools.push_back(std::move(pool));
    }
    out.state_writes_kept = state_writer_.kept();
    done(std::move(out));
  });
}

}  // namespace det::master

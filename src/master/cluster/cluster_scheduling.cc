// The cluster actor's side of scheduling: pools resolved to their resource managers, the job queue
// and job changes, agent enable/disable routed to the manager of the agent.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"
#include "scheduler/feasibility.h"
#include "scheduler/job_queue.h"
#include "scheduler/schedule.h"

namespace det::master {
using nlohmann::json;

absl::Status ValidateJobChange(const JobChange& change) {
  if (change.priority && (*change.priority < 1 || *change.priority > 99)) {
    return absl::InvalidArgumentError(
        absl::StrCat("priority: must be between 1 and 99 (smaller runs first), got ", *change.priority));
  }
  if (change.weight && !(*change.weight > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("weight: must be greater than 0, got ", *change.weight));
  }
  if (change.max_slots && *change.max_slots < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_slots: must be >= 0 (0 removes the limit), got ", *change.max_slots));
  }
  if (change.resource_pool && change.resource_pool->empty()) {
    return absl::InvalidArgumentError("resourcePool: name the pool to move the job to");
  }
  for (const auto* id : {&change.ahead_of, &change.behind_of}) {
    if (*id && (*id)->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(id == &change.ahead_of ? "aheadOf" : "behindOf", ": name the job to move relative to"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Cluster::ResolvePool(const std::string& requested, int slots) const {
  std::string pool = !requested.empty() ? requested
                     : slots > 0        ? options_.default_compute_pool
                                        : options_.default_aux_pool;
  if (manager_of_pool_.count(pool)) return pool;
  std::vector<std::string> names;
  for (const auto& [name, manager] : manager_of_pool_) names.push_back(name);
  return absl::InvalidArgumentError(absl::StrCat("resources.resource_pool: no resource pool named \"", pool,
                                                 "\"; the pools are: ", absl::StrJoin(names, ", ")));
}

absl::Status Cluster::CheckFits(const std::string& pool, int slots, bool single_node,
                                const std::set<std::string>& blocked) const {
  ResourceManager* manager = ManagerOf(pool);
  if (manager == nullptr) return absl::InvalidArgumentError(absl::StrCat("no resource pool named \"", pool, "\""));
  return manager->CheckFits(pool, slots, single_node, blocked);
}

absl::Status Cluster::CheckLaunchFits(const std::string& pool, int slots, bool single_node,
                                      std::vector<std::string>& warnings) const {
  absl::Status fits = CheckFits(pool, slots, single_node);
  if (fits.ok() || options_.launch_error) return fits;
  warnings.push_back(kSlotsExceeded);
  return absl::OkStatus();
}

void Cluster::PrepareConfig(LiveExperiment& exp) {
  config::ExperimentConfig& c = exp.config;
  c.resource_pool = ResolvePool(c.resource_pool, c.slots_per_trial).value_or(options_.default_compute_pool);
  exp.log_policies.clear();
  for (const config::LogPolicy& policy : c.log_policies) {
    if (policy.action.empty() || policy.pattern.empty()) continue;  // labels only
    try {
      exp.log_policies.emplace_back(policy, std::regex(policy.pattern));
    } catch (const std::regex_error& e) {
      spdlog::warn("experiment {}: log policy {}: pattern {} is not a regular expression here: {}",
                   exp.experiment.id, policy.name, policy.pattern, e.what());
    }
  }
}

void Cluster::ObserveTaskLogs(std::vector<api::TaskLog> logs) {
  loop_.Post([this, logs = std::move(logs)] {
    if (logs.empty()) return;
    auto t = std::find_if(trials_.begin(), trials_.end(),
                          [&](const auto& kv) { return kv.second->trial.task_id == logs.front().task_id; });
    if (t == trials_.end()) return;
    LiveTrial& trial = *t->second;
    auto e = experiments_.find(trial.trial.experiment_id);
    if (e == experiments_.end() || e->second->log_policies.empty()) return;
    for (const api::TaskLog& line : logs) {
      for (const auto& [policy, pattern] : e->second->log_policies) {
        if (!std::regex_search(line.log, pattern)) continue;
        if (policy.action == "cancel_retries" && !trial.cancel_retries) {
          trial.cancel_retries = true;
          MasterLog(trial.trial.task_id, line.allocation_id,
                    absl::StrCat("Log policy \"", policy.name, "\" matched (cancel_retries): if the trial fails, it is not retried"));
        } else if (policy.action == "exclude_node") {
          std::vector<std::string> agents;
          if (!line.agent_id.empty()) agents.push_back(line.agent_id);
          if (auto a = allocations_.find(line.allocation_id); agents.empty() && a != allocations_.end()) {
            for (const AgentSlots& p : a->second->record.placements) agents.push_back(p.agent_id);
          }
          for (const std::string& agent : agents) {
            if (!trial.blocked_agents.insert(agent).second) continue;
            MasterLog(trial.trial.task_id, line.allocation_id,
                      absl::StrCat("Log policy \"", policy.name, "\" matched (exclude_node): the trial's retries avoid agent ", agent));
          }
        }
      }
    }
  });
}

JobAttributes Cluster::JobOf(const LiveAllocation& alloc) const {
  return tasks_.at(alloc.record.task_id)->spec->Job();
}

ResourceManager* Cluster::ManagerOf(const std::string& pool) const {
  auto it = manager_of_pool_.find(pool);
  return it == manager_of_pool_.end() ? nullptr : it->second;
}

bool Cluster::MayStartWork() const {
  // Nothing starts while the master shuts down (what is queued waits for the next master), or while
  // the database is away or behind on new rows: a process could not authenticate. The writer
  // calls Schedule again once it caught up.
  return !shutting_down_ && !state_writer_.CreationKept() && !state_writer_.Unavailable();
}

void Cluster::Schedule() {
  if (!MayStartWork()) return;
  for (const auto& manager : managers_) manager->Schedule();
}

void Cluster::ReleaseAllocation(LiveAllocation& alloc, const std::string& why) {
  if (alloc.preempt) return;  // already asked to stop
  alloc.released = true;
  MasterLog(alloc.record.task_id, alloc.record.allocation_id, absl::StrCat(why, " (preemption signal)"));
  SignalPreemption(alloc);
}

void Cluster::Shutdown(std::chrono::milliseconds grace, std::function<void()> done) {
  loop_.Post([this, grace, done = std::move(done)]() mutable {
    shutting_down_ = true;
    shutdown_done_ = std::move(done);
    for (auto& [id, alloc] : allocations_) {
      if (!StopsForShutdown(*alloc)) continue;
      ReleaseAllocation(*alloc, "The master is shutting down: the trial checkpoints, exits and resumes from that "
                                "checkpoint when the master is back");
    }
    loop_.PostAfter(grace, [this] {
      if (!shutdown_done_) return;
      spdlog::warn("shutdown: trials still running after the grace period; stopping anyway");
      std::exchange(shutdown_done_, nullptr)();
    });
    MaybeFinishShutdown();
  });
}

bool Cluster::StopsForShutdown(const LiveAllocation& alloc) const {
  auto task = tasks_.find(alloc.record.task_id);
  return !alloc.record.placements.empty() && task != tasks_.end() && task->second->spec->StopsForMasterShutdown();
}

void Cluster::MaybeFinishShutdown() {
  if (!shutdown_done_) return;
  for (const auto& [id, alloc] : allocations_) {
    if (StopsForShutdown(*alloc)) return;
  }
  spdlog::info("shutdown: no trial is running");
  std::exchange(shutdown_done_, nullptr)();
}

absl::StatusOr<ResourceManager*> Cluster::ManagerOfAgent(const std::string& agent_id) const {
  for (const auto& manager : managers_) {
    for (const AgentSummary& agent : manager->Agents()) {
      if (agent.identity.id == agent_id) return manager.get();
    }
  }
  return absl::NotFoundError(absl::StrCat("agent ", agent_id, " is not connected"));
}

void Cluster::SetAgentEnabled(const std::string& agent_id, bool enabled, bool drain,
                              std::function<void(absl::StatusOr<AgentSummary>)> done) {
  loop_.Post([this, agent_id, enabled, drain, done = std::move(done)] {
    absl::StatusOr<ResourceManager*> manager = ManagerOfAgent(agent_id);
    if (!manager.ok()) return done(manager.status());
    absl::StatusOr<AgentSummary> agent = (*manager)->SetAgentEnabled(agent_id, enabled, drain);
    Schedule();
    done(std::move(agent));
  });
}

void Cluster::SetSlotEnabled(const std::string& agent_id, int slot_id, bool enabled, bool drain,
                             std::function<void(absl::StatusOr<AgentSummary>)> done) {
  loop_.Post([this, agent_id, slot_id, enabled, drain, done = std::move(done)] {
    absl::StatusOr<ResourceManager*> manager = ManagerOfAgent(agent_id);
    if (!manager.ok()) return done(manager.status());
    absl::StatusOr<AgentSummary> agent = (*manager)->SetSlotEnabled(agent_id, slot_id, enabled, drain);
    Schedule();
    done(std::move(agent));
  });
}

void Cluster::ListAgents(std::function<void(std::vector<AgentSummary>)> done) {
  loop_.Post([this, done = std::move(done)] {
    std::vector<AgentSummary> out;
    for (const auto& manager : managers_) {
      std::vector<AgentSummary> agents = manager->Agents();
      out.insert(out.end(), std::make_move_iterator(agents.begin()), std::make_move_iterator(agents.end()));
    }
    done(std::move(out));
  });
}

void Cluster::ListJobs(std::function<void(std::vector<JobInfo>)> done) {
  loop_.Post([this, done = std::move(done)] {
    // What each job is: an experiment, or a task that is a job of its own (a command, a generic task).
    std::map<std::string, JobInfo> by_job;
    for (const auto& [id, exp] : experiments_) {
      JobInfo& job = by_job[exp->experiment.job_id];
      job.entity_id = std::to_string(exp->experiment.id);
      job.name = exp->experiment.name;
      job.username = exp->experiment.username;
      job.user_id = exp->experiment.owner_id;
      job.workspace_id = exp->experiment.workspace_id;
      job.submission_time = exp->experiment.start_time;
      job.progress = exp->experiment.progress;
    }
    for (const auto& [id, task] : tasks_) {
      if (!task->spec->IsOwnJob()) continue;
      JobInfo& job = by_job[task->record.job_id];
      job.type = absl::StrCat("TYPE_", Name(task->record.type));
      job.entity_id = id;
      job.name = task->record.description;
      job.username = task->record.username;
      job.user_id = task->record.owner_id;
      job.workspace_id = task->record.workspace_id;
      job.submission_time = task->record.start_time;
    }
    std::vector<QueuedJobView> queue;
    for (const auto& manager : managers_) {
      std::vector<QueuedJobView> own = manager->JobQueue();
      queue.insert(queue.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
    }
    // Pools in name order, whichever manager owns them; each pool's jobs in queue order.
    std::stable_sort(queue.begin(), queue.end(),
                     [](const QueuedJobView& a, const QueuedJobView& b) { return a.resource_pool < b.resource_pool; });
    std::vector<JobInfo> out;
    for (const QueuedJobView& queued : queue) {
      JobInfo job = by_job.at(queued.job_id);
      job.job_id = queued.job_id;
      job.resource_pool = queued.resource_pool;
      job.jobs_ahead = queued.jobs_ahead;
      job.requested_slots = queued.requested_slots;
      job.allocated_slots = queued.allocated_slots;
      job.priority = queued.priority;
      job.weight = queued.weight;
      job.preemptible = queued.preemptible;
      job.state = queued.state;
      job.pending_reason = queued.pending_reason;
      out.push_back(std::move(job));
    }
    done(std::move(out));
  });
}

void Cluster::UpdateJob(const std::string& job_id, JobChange change, std::function<void(absl::Status)> done) {
  loop_.Post([this, job_id, change = std::move(change), done = std::move(done)]() mutable {
    if (absl::Status st = DoUpdateJob(job_id, change, done); !st.ok()) done(st);
  });
}

absl::StatusOr<JobSettings> Cluster::ChangedJobSettings(const std::string& job_id, JobSettings current,
                                                                 int slots, bool single_node,
                                                                 const JobChange& change) const {
  RETURN_IF_ERROR(ValidateJobChange(change));
  JobSettings out = std::move(current);
  if (change.resource_pool) {
    ASSIGN_OR_RETURN(out.pool, ResolvePool(*change.resource_pool, slots));
    RETURN_IF_ERROR(CheckFits(out.pool, slots, single_node));
  }
  if (change.priority) {
    out.priority = change.priority;
    out.position.reset();  // a new priority puts the job back in submission order (upstream)
  }
  if (change.ahead_of || change.behind_of) {
    const std::string& anchor = change.ahead_of ? *change.ahead_of : *change.behind_of;
    std::vector<scheduler::QueuedJob> queue = ManagerOf(out.pool)->QueueOrder(out.pool);
    ASSIGN_OR_RETURN(scheduler::QueueMove move, change.ahead_of ? scheduler::MoveAheadOf(queue, job_id, anchor)
                                                               : scheduler::MoveBehindOf(queue, job_id, anchor));
    out.priority = move.priority;
    out.position = move.position;
  }
  if (change.weight) out.weight = *change.weight;
  if (change.max_slots) out.max_slots = *change.max_slots > 0 ? change.max_slots : std::nullopt;
  return out;
}

absl::Status Cluster::DoUpdateJob(const std::string& job_id, const JobChange& change,
                                  std::function<void(absl::Status)>& done) {
  if (std::optional<absl::Status> down = state_writer_.Unavailable()) return *down;
  auto e = std::find_if(experiments_.begin(), experiments_.end(),
                        [&](const auto& kv) { return kv.second->experiment.job_id == job_id; });
  if (e == experiments_.end()) {
    LiveTask* task = TaskOfJob(job_id);
    if (task == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("job ", job_id, " is not in the queue (no live experiment, command or task has that job id)"));
    }
    return UpdateTaskJob(*task, change, done);
  }
  LiveExperiment& exp = *e->second;
  ASSIGN_OR_RETURN(JobSettings next,
                   ChangedJobSettings(job_id,
                                      {PriorityOf(exp.config), exp.experiment.queue_position, exp.config.weight,
                                       exp.config.max_slots, exp.config.resource_pool},
                                      exp.config.slots_per_trial, exp.config.is_single_node, change));
  // The new attributes go in the config, where a restarted master finds them.
  json config = json::parse(exp.experiment.config_json, nullptr, false);
  if (!config.is_object()) return absl::DataLossError(absl::StrCat("experiment ", exp.experiment.id, ": bad stored config"));
  json& resources = config["resources"];
  if (next.priority) resources["priority"] = *next.priority;
  resources["weight"] = next.weight;
  resources["max_slots"] = next.max_slots ? json(*next.max_slots) : json();
  resources["resource_pool"] = next.pool;
  ExperimentPatch patch;
  patch.config_json = config.dump();
  patch.queue_position = next.position;
  // Stored behind the loop and answered once durable; used now.
  Persist(absl::StrCat("experiment ", exp.experiment.id, " config"),
          [this, id = exp.experiment.id, patch] { return store_.PatchExperiment(id, patch).status(); }, std::move(done));
  exp.experiment.config_json = exp.config.full_json = *patch.config_json;
  exp.config.priority = next.priority.value_or(0);
  exp.config.weight = next.weight;
  exp.config.max_slots = next.max_slots;
  exp.experiment.queue_position = next.position;
  if (next.pool != exp.config.resource_pool) {
    exp.config.resource_pool = next.pool;
    // Running trials move too: they checkpoint and are queued again in the new pool.
    for (auto& [id, alloc] : allocations_) {
      auto t = tasks_.find(alloc->record.task_id);
      if (t == tasks_.end() || t->second->record.job_id != job_id) continue;
      if (!alloc->record.placements.empty() && alloc->record.resource_pool != next.pool) {
        ReleaseAllocation(*alloc, absl::StrCat("The experiment moved to resource pool ", next.pool));
      }
    }
  }
  FollowJobPool(job_id, next.pool);
  spdlog::info("job {} (experiment {}) updated", job_id, exp.experiment.id);
  Schedule();
  return absl::OkStatus();
}

Cluster::LiveTask* Cluster::TaskOfJob(const std::string& job_id) const {
  for (const auto& [id, task] : tasks_) {
    if (task->spec->IsOwnJob() && task->record.job_id == job_id) return task.get();
  }
  return nullptr;
}

absl::Status Cluster::UpdateTaskJob(LiveTask& task, const JobChange& change, std::function<void(absl::Status)>& done) {
  const JobAttributes job = task.spec->Job();
  ASSIGN_OR_RETURN(JobSettings next,
                   ChangedJobSettings(task.record.job_id,
                                      {job.priority, job.queue_position, job.weight, job.max_slots, job.resource_pool},
                                      job.slots, job.single_node, change));
  // A running task that is not preemptible finishes where it runs; a queued one waits in the new pool.
  task.spec->ChangeJob(next, std::move(done));  // answered once durable
  FollowJobPool(task.record.job_id, next.pool);
  spdlog::info("job {} ({}) updated", task.record.job_id, task.spec->Label());
  Schedule();
  return absl::OkStatus();
}

void Cluster::FollowJobPool(const std::string& job_id, const std::string& pool) {
  ResourceManager* manager = ManagerOf(pool);
  for (auto& [id, alloc] : allocations_) {
    if (alloc->manager == manager || alloc->record.state != AllocationState::kQueued) continue;
    auto t = tasks_.find(alloc->record.task_id);
    if (t == tasks_.end() || t->second->record.job_id != job_id) continue;
    alloc->manager->Release(id);
    alloc->manager = manager;
    manager->Request({.allocation_id = id, .task_id = alloc->record.task_id, .slots = alloc->record.slots});
  }
}

void Cluster::ListResourcePools(std::function<void(std::vector<PoolSummary>)> done) {
  loop_.Post([this, done = std::move(done)] {
    std::vector<PoolSummary> out;
    for (const auto& manager : managers_) {
      for (PoolSummary& pool : manager->Pools()) {
        if (ManagerOf(pool.options.name) != manager.get()) continue;  // a repeated name (see ClusterOptions)
        pool.default_compute = pool.options.name == options_.default_compute_pool;
        pool.default_aux = pool.options.name == options_.default_aux_pool;
        out.push_back(std::move(pool));
      }
    }
    std::sort(out.begin(), out.end(),
              [](const PoolSummary& a, const PoolSummary& b) { return a.options.name < b.options.name; });
    done(std::move(out));
  });
}

}  // namespace det::master

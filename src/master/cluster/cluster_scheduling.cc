// The cluster actor's scheduling: each resource pool's policy (src/scheduler) run over a snapshot
// of the pool, its decisions carried out; the job queue and agent enable/disable on top of it.
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
namespace {

using nlohmann::json;

std::string PolicyName(scheduler::SchedulerType type) {
  switch (type) {
    case scheduler::SchedulerType::kFairShare:
      return "fair-share";
    case scheduler::SchedulerType::kRoundRobin:
      return "round-robin";
    case scheduler::SchedulerType::kPriority:
      break;
  }
  return "priority";
}

}  // namespace

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
  if (pools_.count(pool)) return pool;
  std::vector<std::string> names;
  for (const auto& [name, options] : pools_) names.push_back(name);
  return absl::InvalidArgumentError(absl::StrCat("resources.resource_pool: no resource pool named \"", pool,
                                                 "\"; the pools are: ", absl::StrJoin(names, ", ")));
}

absl::Status Cluster::CheckFits(const std::string& pool, int slots, bool single_node,
                                const std::set<std::string>& blocked) const {
  scheduler::PoolSnapshot snapshot = PoolSnapshotOf(pool);
  if (snapshot.agents.empty()) return absl::OkStatus();
  std::erase_if(snapshot.agents, [&](const scheduler::AgentState& a) { return blocked.count(a.id) > 0; });
  scheduler::PendingRequest request;
  request.slots = slots;
  request.single_node = single_node;
  absl::Status fits = scheduler::CheckFeasible(snapshot, request, pools_.at(pool).scheduler.allow_heterogeneous_fits);
  if (fits.ok() || blocked.empty()) return fits;
  return absl::FailedPreconditionError(absl::StrCat("log policy exclude_node excluded agent(s) ",
                                                    absl::StrJoin(blocked, ", "), ": ", fits.message()));
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

scheduler::PendingRequest Cluster::PendingRequestOf(const LiveAllocation& alloc, JobAttributes job) const {
  scheduler::PendingRequest r;
  r.allocation_id = alloc.record.allocation_id;
  r.job_id = job.job_id;
  r.job_submission = job.submission_order;
  r.request_order = alloc.request_order;
  r.queue_position = job.queue_position;
  r.slots = alloc.record.slots;
  r.single_node = job.single_node;
  r.preemptible = job.preemptible;
  r.priority = job.priority;
  r.weight = job.weight;
  r.max_slots = job.max_slots;
  r.blocked_agents = std::move(job.blocked_agents);
  return r;
}

scheduler::PoolSnapshot Cluster::PoolSnapshotOf(const std::string& pool) const {
  scheduler::PoolSnapshot s;
  s.pool_name = pool;
  const PoolOptions& options = pools_.at(pool);
  for (const auto& [id, agent] : agents_) {
    if (agent->identity.resource_pool != pool) continue;
    scheduler::AgentState a;
    a.id = id;
    a.total_slots = static_cast<int>(agent->slots.size());
    for (const api::SlotInfo& slot : agent->slots) {
      if (!agent->slot_allocations.count(slot.id) && !agent->disabled_slots.count(slot.id)) {
        a.free_slot_ids.push_back(slot.id);
      }
    }
    // A disconnected agent (in its reconnect grace) keeps its work but gets nothing new.
    a.enabled = agent->enabled && agent->hello_received;
    a.draining = agent->draining;
    a.max_aux_containers = options.max_aux_containers_per_agent;
    a.running_zero_slot = static_cast<int>(agent->zero_slot_allocations.size());
    s.agents.push_back(std::move(a));
  }
  for (const auto& [id, alloc] : allocations_) {
    if (alloc->record.placements.empty() || alloc->record.resource_pool != pool) continue;  // queued: below
    JobAttributes job = JobOf(*alloc);
    scheduler::RunningAllocation r;
    r.allocation_id = id;
    r.job_id = job.job_id;
    r.job_submission = job.submission_order;
    r.queue_position = job.queue_position;
    r.slots = alloc->record.slots;
    for (const AgentSlots& p : alloc->record.placements) r.placements.push_back({p.agent_id, p.slot_ids});
    r.preemptible = job.preemptible;
    r.priority = job.priority;
    r.weight = job.weight;
    r.max_slots = job.max_slots;
    r.start_order = alloc->start_order;
    s.running.push_back(std::move(r));
  }
  for (const std::string& id : pending_) {
    const LiveAllocation& alloc = *allocations_.at(id);
    JobAttributes job = JobOf(alloc);
    if (job.resource_pool == pool) s.pending.push_back(PendingRequestOf(alloc, std::move(job)));
  }
  return s;
}

void Cluster::Schedule() {
  if (shutting_down_) return;  // what is queued now waits for the next master
  // Nothing starts while the database is away or behind on new rows: a process could not
  // authenticate. The writer calls again once it caught up.
  if (state_writer_.CreationKept() || state_writer_.Unavailable()) return;
  for (const auto& [name, pool] : pools_) SchedulePool(pool);
}

void Cluster::SchedulePool(const PoolOptions& pool) {
  scheduler::PoolSnapshot snapshot = PoolSnapshotOf(pool.name);
  if (snapshot.pending.empty()) return;
  scheduler::Decision decision = scheduler::Schedule(pool.scheduler, snapshot);
  for (const std::string& id : decision.to_preempt) {
    auto a = allocations_.find(id);
    if (a == allocations_.end()) continue;
    bool trial = tasks_.at(a->second->record.task_id)->record.type == TaskType::kTrial;
    ReleaseAllocation(*a->second, absl::StrCat("The ", PolicyName(pool.scheduler.type), " scheduler of pool ",
                                               pool.name, " preempts this ", trial ? "trial" : "task",
                                               " to give its slots to other work"));
  }
  for (const scheduler::StartDecision& start : decision.to_start) {
    auto a = allocations_.find(start.allocation_id);
    if (a == allocations_.end()) continue;
    pending_.erase(std::find(pending_.begin(), pending_.end(), start.allocation_id));
    StartAllocation(*a->second, start.placements, start.backfilled, pool.name);
  }
  // Agents left the pool since it was submitted: it waits for them, and says so once.
  for (const std::string& id : decision.infeasible) {
    auto a = allocations_.find(id);
    if (a == allocations_.end() || a->second->infeasible_logged) continue;
    a->second->infeasible_logged = true;
    MasterLog(a->second->record.task_id, id,
              absl::StrCat("The agents now in pool ", pool.name, " cannot hold ", a->second->record.slots,
                           " slot(s); waiting for more agents"));
  }
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
      if (!IsRunningTrial(*alloc)) continue;
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

bool Cluster::IsRunningTrial(const LiveAllocation& alloc) const {
  auto task = tasks_.find(alloc.record.task_id);
  return !alloc.running_on.empty() && task != tasks_.end() && task->second->record.type == TaskType::kTrial;
}

void Cluster::MaybeFinishShutdown() {
  if (!shutdown_done_) return;
  for (const auto& [id, alloc] : allocations_) {
    if (IsRunningTrial(*alloc)) return;
  }
  spdlog::info("shutdown: no trial is running");
  std::exchange(shutdown_done_, nullptr)();
}

AgentSummary Cluster::SummaryOf(const AgentState& agent) const {
  return {agent.identity, agent.registered_time, agent.slots, agent.slot_allocations, agent.enabled, agent.draining,
          agent.disabled_slots};
}

void Cluster::SetAgentEnabled(const std::string& agent_id, bool enabled, bool drain,
                              std::function<void(absl::StatusOr<AgentSummary>)> done) {
  loop_.Post([this, agent_id, enabled, drain, done = std::move(done)] {
    auto it = agents_.find(agent_id);
    if (it == agents_.end() || !it->second->hello_received) {
      return done(absl::NotFoundError(absl::StrCat("agent ", agent_id, " is not connected")));
    }
    AgentState& agent = *it->second;
    agent.enabled = enabled;
    agent.draining = !enabled && drain;
    spdlog::info("agent {} {}", agent_id, enabled ? "enabled" : drain ? "disabled (draining)" : "disabled");
    if (!enabled && !drain) {
      std::set<std::string> running(agent.zero_slot_allocations.begin(), agent.zero_slot_allocations.end());
      for (const auto& [slot, id] : agent.slot_allocations) running.insert(id);
      KillDisabledWork(running, absl::StrCat("Agent ", agent_id, " was disabled"));
    }
    Schedule();
    done(SummaryOf(agent));
  });
}

void Cluster::SetSlotEnabled(const std::string& agent_id, int slot_id, bool enabled, bool drain,
                             std::function<void(absl::StatusOr<AgentSummary>)> done) {
  loop_.Post([this, agent_id, slot_id, enabled, drain, done = std::move(done)] {
    auto it = agents_.find(agent_id);
    if (it == agents_.end() || !it->second->hello_received) {
      return done(absl::NotFoundError(absl::StrCat("agent ", agent_id, " is not connected")));
    }
    AgentState& agent = *it->second;
    auto is_slot = [&](const api::SlotInfo& s) { return s.id == slot_id; };
    if (std::none_of(agent.slots.begin(), agent.slots.end(), is_slot)) {
      return done(absl::NotFoundError(absl::StrCat("slot ", slot_id, " not found on agent ", agent_id,
                                                   "; `det slot list` shows the slots of every agent")));
    }
    if (enabled) {
      agent.disabled_slots.erase(slot_id);
    } else {
      agent.disabled_slots.insert(slot_id);
    }
    spdlog::info("agent {} slot {} {}", agent_id, slot_id, enabled ? "enabled" : drain ? "disabled (draining)" : "disabled");
    if (auto used = agent.slot_allocations.find(slot_id); !enabled && !drain && used != agent.slot_allocations.end()) {
      KillDisabledWork({used->second}, absl::StrCat("Slot ", slot_id, " of agent ", agent_id, " was disabled"));
    }
    Schedule();
    done(SummaryOf(agent));
  });
}

void Cluster::KillDisabledWork(const std::set<std::string>& allocation_ids, const std::string& why) {
  // Killed now; trials requeue without counting a restart.
  for (const std::string& id : allocation_ids) {
    LiveAllocation& alloc = *allocations_.at(id);
    alloc.released = true;
    MasterLog(alloc.record.task_id, id, absl::StrCat(why, "; killing the task's process"));
    KillProcesses(alloc);
  }
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
      if (task->record.type == TaskType::kTrial) continue;
      JobInfo& job = by_job[task->record.job_id];
      job.type = absl::StrCat("TYPE_", Name(task->record.type));
      job.entity_id = id;
      job.name = task->record.description;
      job.username = task->record.username;
      job.user_id = task->record.owner_id;
      job.workspace_id = task->record.workspace_id;
      job.submission_time = task->record.start_time;
    }
    std::vector<JobInfo> out;
    for (const auto& [name, pool] : pools_) {
      scheduler::PoolSnapshot snapshot = PoolSnapshotOf(name);
      std::map<std::string, int> ahead = scheduler::JobsAhead(pool.scheduler, snapshot);
      for (const scheduler::QueuedJob& queued : scheduler::JobQueue(pool.scheduler, snapshot)) {
        JobInfo job = by_job.at(queued.job_id);
        job.job_id = queued.job_id;
        job.resource_pool = name;
        job.jobs_ahead = ahead.at(queued.job_id);
        bool backfilled = false;
        bool scheduled = false;
        for (const scheduler::RunningAllocation& r : snapshot.running) {
          if (r.job_id != queued.job_id) continue;
          job.requested_slots += r.slots;
          job.allocated_slots += r.slots;
          job.priority = scheduler::EffectivePriority(r.priority, pool.scheduler);
          job.weight = r.weight;
          job.preemptible = r.preemptible;
          scheduled = true;
          backfilled = backfilled || allocations_.at(r.allocation_id)->backfilled;
        }
        for (const scheduler::PendingRequest& p : snapshot.pending) {
          if (p.job_id != queued.job_id) continue;
          job.requested_slots += p.slots;
          job.priority = scheduler::EffectivePriority(p.priority, pool.scheduler);
          job.weight = p.weight;
          job.preemptible = p.preemptible;
        }
        job.state = !scheduled ? "STATE_QUEUED" : backfilled ? "STATE_SCHEDULED_BACKFILLED" : "STATE_SCHEDULED";
        out.push_back(std::move(job));
      }
    }
    done(std::move(out));
  });
}

void Cluster::UpdateJob(const std::string& job_id, JobChange change, std::function<void(absl::Status)> done) {
  loop_.Post([this, job_id, change = std::move(change), done = std::move(done)]() mutable {
    if (absl::Status st = DoUpdateJob(job_id, change, done); !st.ok()) done(st);
  });
}

absl::StatusOr<Cluster::JobSettings> Cluster::ChangedJobSettings(const std::string& job_id, JobSettings current,
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
    std::vector<scheduler::QueuedJob> queue = scheduler::JobQueue(pools_.at(out.pool).scheduler, PoolSnapshotOf(out.pool));
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
    auto t = std::find_if(tasks_.begin(), tasks_.end(), [&](const auto& kv) {
      return kv.second->record.type != TaskType::kTrial && kv.second->record.job_id == job_id;
    });
    if (t == tasks_.end()) {
      return absl::NotFoundError(
          absl::StrCat("job ", job_id, " is not in the queue (no live experiment, command or task has that job id)"));
    }
    return UpdateTaskJob(*t->second, change, done);
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
  spdlog::info("job {} (experiment {}) updated", job_id, exp.experiment.id);
  Schedule();
  return absl::OkStatus();
}

absl::Status Cluster::UpdateTaskJob(LiveTask& task, const JobChange& change, std::function<void(absl::Status)>& done) {
  config::CommandConfig& c = static_cast<CommandSpec&>(*task.spec).config;
  ASSIGN_OR_RETURN(JobSettings next,
                   ChangedJobSettings(task.record.job_id,
                                      {c.priority, task.record.queue_position, c.weight, c.max_slots, c.resource_pool},
                                      c.slots, c.is_single_node, change));
  Task record = task.record;
  json config = json::parse(record.config_json, nullptr, false);
  if (!config.is_object()) config = c.full;
  json& resources = config["resources"];
  resources["priority"] = next.priority ? json(*next.priority) : json();
  resources["weight"] = next.weight;
  resources["max_slots"] = next.max_slots ? json(*next.max_slots) : json();
  resources["resource_pool"] = next.pool;
  record.config_json = config.dump();
  record.queue_position = next.position;
  SaveTask(record, std::move(done));  // answered once durable
  task.record = std::move(record);
  c.full = std::move(config);
  c.priority = next.priority;
  c.weight = next.weight;
  c.max_slots = next.max_slots;
  // A running command is not preemptible: it finishes where it runs; a queued one waits in the new pool.
  c.resource_pool = next.pool;
  spdlog::info("job {} ({} {}) updated", task.record.job_id, std::string(Name(task.record.type)), task.record.task_id);
  Schedule();
  return absl::OkStatus();
}

void Cluster::ListResourcePools(std::function<void(std::vector<PoolSummary>)> done) {
  loop_.Post([this, done = std::move(done)] {
    std::vector<PoolSummary> out;
    for (const auto& [name, pool] : pools_) {
      PoolSummary summary;
      summary.options = pool;
      summary.default_compute = name == options_.default_compute_pool;
      summary.default_aux = name == options_.default_aux_pool;
      for (const auto& [id, agent] : agents_) {
        if (agent->identity.resource_pool != name || !agent->hello_received) continue;
        summary.num_agents += 1;
        summary.slots_used += static_cast<int>(agent->slot_allocations.size());
        summary.aux_running += static_cast<int>(agent->zero_slot_allocations.size());
        for (const api::SlotInfo& slot : agent->slots) {
          if (slot.type == "cuda") summary.slot_type = "cuda";
        }
        if (!agent->enabled) continue;
        summary.slots_available += static_cast<int>(agent->slots.size());
        summary.aux_capacity += pool.max_aux_containers_per_agent;
      }
      out.push_back(std::move(summary));
    }
    done(std::move(out));
  });
}

}  // namespace det::master

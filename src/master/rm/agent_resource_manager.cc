#include "master/rm/agent_resource_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/rm/pool_queue.h"
#include "master/rm/resources_id.h"
#include "master/rm/task_container.h"
#include "scheduler/feasibility.h"
#include "scheduler/job_queue.h"
#include "scheduler/schedule.h"

namespace det::master {

using nlohmann::json;

struct AgentResourceManager::AgentState {
  AgentIdentity identity;
  std::shared_ptr<WebSocketConnection> connection;  // null while disconnected
  WallTime registered_time;
  bool hello_received = false;  // false while disconnected, until the next hello
  uint64_t generation = 0;       // bumped on every connection, so a stale grace timer does nothing
  std::vector<api::SlotInfo> slots;
  std::map<int, std::string> slot_allocations;
  std::set<std::string> zero_slot_allocations;  // running allocations that hold no slot here
  bool enabled = true;
  bool draining = false;
  std::set<int> disabled_slots;  // nothing new starts on these

  void Send(const api::MasterMessage& message) const {
    if (connection) connection->Send(api::Encode(message));
  }
};

AgentResourceManager::AgentResourceManager(EventLoop& loop, AllocationEvents& events,
                                           AgentResourceManagerOptions options)
    : loop_(loop), events_(events), options_(std::move(options)) {
  if (options_.pools.empty()) options_.pools.push_back(PoolOptions{.name = "default"});
  for (const PoolOptions& pool : options_.pools) pools_[pool.name] = pool;
}

AgentResourceManager::~AgentResourceManager() = default;

std::vector<PoolSummary> AgentResourceManager::Pools() const {
  std::vector<PoolSummary> out;
  for (const auto& [name, pool] : pools_) {
    PoolSummary summary;
    summary.options = pool;
    summary.cluster_name = options_.cluster_name;
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
  return out;
}

absl::Status AgentResourceManager::CheckFits(const std::string& pool, int slots, bool single_node,
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

void AgentResourceManager::Request(const AllocationRequest& request) {
  Managed& alloc = allocations_[request.allocation_id];
  alloc.request = request;
  alloc.request_order = next_request_order_++;
  pending_.push_back(request.allocation_id);
}

scheduler::PoolSnapshot AgentResourceManager::PoolSnapshotOf(const std::string& pool) const {
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
    if (alloc.placements.empty() || alloc.pool != pool) continue;  // queued: below
    s.running.push_back(RunningRecord(id, events_.JobOf(id), alloc.request.slots, alloc.placements, alloc.start_order));
  }
  for (const std::string& id : pending_) {
    JobAttributes job = events_.JobOf(id);
    if (job.resource_pool != pool) continue;
    const Managed& alloc = allocations_.at(id);
    s.pending.push_back(PendingRecord(id, std::move(job), alloc.request.slots, alloc.request_order));
  }
  return s;
}

void AgentResourceManager::Schedule() {
  if (!events_.MayStartWork()) return;
  // A figure for operators only (Prometheus), so the steady clock is read here directly.
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [name, pool] : pools_) SchedulePool(pool);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++scheduling_.passes;
  scheduling_.seconds_total += seconds;
  scheduling_.last_pass_seconds = seconds;
}

void AgentResourceManager::SchedulePool(const PoolOptions& pool) {
  scheduler::PoolSnapshot snapshot = PoolSnapshotOf(pool.name);
  if (snapshot.pending.empty()) return;
  scheduler::Decision decision = scheduler::Schedule(pool.scheduler, snapshot);
  for (const std::string& id : decision.to_preempt) {
    if (!allocations_.count(id)) continue;
    events_.ReclaimRequested(id,
                             absl::StrCat("The ", scheduler::ConfigName(pool.scheduler.type), " scheduler of pool ", pool.name,
                                          " preempts this task to give its slots to other work"),
                             false);
  }
  for (const scheduler::StartDecision& start : decision.to_start) {
    auto a = allocations_.find(start.allocation_id);
    if (a == allocations_.end()) continue;
    pending_.erase(std::find(pending_.begin(), pending_.end(), start.allocation_id));
    Place(a->second, start.placements, start.backfilled, pool.name);
  }
  // Agents left the pool since it was submitted: it waits for them, and says so once.
  for (const std::string& id : decision.infeasible) {
    auto a = allocations_.find(id);
    if (a == allocations_.end() || a->second.infeasible_logged) continue;
    a->second.infeasible_logged = true;
    events_.Log(id, absl::StrCat("The agents now in pool ", pool.name, " cannot hold ", a->second.request.slots,
                                 " slot(s); waiting for more agents"));
  }
}

void AgentResourceManager::Place(Managed& alloc, const std::vector<scheduler::SlotPlacement>& placements,
                                 bool backfilled, const std::string& pool) {
  const std::string& id = alloc.request.allocation_id;
  alloc.pool = pool;
  alloc.backfilled = backfilled;
  alloc.start_order = next_start_order_++;
  alloc.placements.clear();
  for (const scheduler::SlotPlacement& p : placements) {
    AgentState& agent = *agents_.at(p.agent_id);
    AgentSlots placed{p.agent_id, p.slot_ids, {}};
    for (int s : p.slot_ids) {
      for (const api::SlotInfo& slot : agent.slots) {
        if (slot.id == s) placed.devices.push_back(slot);
      }
    }
    alloc.placements.push_back(std::move(placed));
    alloc.running_on.insert(p.agent_id);
    for (int s : p.slot_ids) agent.slot_allocations[s] = id;
    if (p.slot_ids.empty()) agent.zero_slot_allocations.insert(id);
  }
  events_.Placed(id, Placement{.pool = pool, .processes = alloc.placements, .backfilled = backfilled});
}

void AgentResourceManager::Start(const std::string& allocation_id, const ProcessLaunch& launch) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  alloc.started = true;
  // Where the processes find each other (upstream's rendezvous.json): the agents' addresses and slot
  // counts in rank order, the chief first.
  Rendezvous where = *RendezvousOf(allocation_id);
  json rendezvous = {{"container_addrs", where.addresses}, {"container_slot_counts", where.slots}};
  // One process per agent; a gang's processes are told apart by their resources id.
  for (size_t rank = 0; rank < alloc.placements.size(); ++rank) {
    const AgentSlots& p = alloc.placements[rank];
    api::StartTask start;
    start.allocation_id = allocation_id;
    start.task_id = alloc.request.task_id;
    start.task_type = launch.task_type;
    start.entrypoint = launch.entrypoint;
    start.env = launch.env;
    if (alloc.placements.size() > 1) {
      start.env["DET_RESOURCES_ID"] = start.env["DET_CONTAINER_ID"] =
          ResourcesId(allocation_id, static_cast<int>(rank), static_cast<int>(alloc.placements.size()));
    }
    rendezvous["container_rank"] = rank;
    start.env["DET_RENDEZVOUS_INFO"] = rendezvous.dump();
    start.slot_ids = p.slot_ids;
    start.session_token = launch.session_token;
    start.download_context = launch.download_context;
    start.user = launch.user;
    start.work_dir = launch.work_dir;
    start.mounts = launch.mounts;
    const auto agent = agents_.find(p.agent_id);
    const std::string slot_type =
        agent != agents_.end() && !agent->second->slots.empty() ? agent->second->slots.front().type : "cpu";
    auto pool = pools_.find(alloc.pool);
    absl::StatusOr<std::optional<api::TaskContainer>> container = TaskContainerOf(
        launch.environment, launch.resources, slot_type, pool != pools_.end() ? pool->second.container_defaults : ContainerDefaults{});
    if (!container.ok()) {
      events_.Log(allocation_id, std::string(container.status().message()));
      return Kill(allocation_id);
    }
    start.container = *container;
    // An agent that went away meanwhile ends the allocation when it is forgotten.
    if (agent != agents_.end()) agent->second->Send(start);
  }
}

void AgentResourceManager::SendKills(const Managed& alloc) {
  if (!alloc.started) return;  // nothing runs yet
  for (const std::string& agent_id : alloc.running_on) {
    if (auto agent = agents_.find(agent_id); agent != agents_.end()) {
      agent->second->Send(api::KillTask{alloc.request.allocation_id, 10});
    }
  }
}

void AgentResourceManager::Kill(const std::string& allocation_id) {
  if (auto a = allocations_.find(allocation_id); a != allocations_.end()) SendKills(a->second);
}

void AgentResourceManager::FreeSlots(const Managed& alloc) {
  for (const AgentSlots& p : alloc.placements) {
    auto agent = agents_.find(p.agent_id);
    if (agent == agents_.end()) continue;
    for (int s : p.slot_ids) agent->second->slot_allocations.erase(s);
    agent->second->zero_slot_allocations.erase(alloc.request.allocation_id);
  }
}

void AgentResourceManager::Requeue(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  FreeSlots(alloc);
  alloc.placements.clear();
  alloc.running_on.clear();
  alloc.started = false;
  alloc.pool.clear();
  pending_.push_front(allocation_id);
}

void AgentResourceManager::Release(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  SendKills(a->second);  // processes still running elsewhere (a gang that lost an agent) are stopped
  FreeSlots(a->second);
  std::erase(pending_, allocation_id);
  allocations_.erase(a);
}

void AgentResourceManager::ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind,
                                      const std::string& why) {
  Release(allocation_id);
  events_.Exited(allocation_id, exit_code, kind, why);
}

void AgentResourceManager::Restore(const Allocation& record) {
  Managed& alloc = allocations_[record.allocation_id];
  alloc.request = {.allocation_id = record.allocation_id, .task_id = record.task_id, .slots = record.slots};
  alloc.start_order = next_start_order_++;
  alloc.pool = record.resource_pool;
  alloc.placements = record.placements;
  alloc.started = true;
  for (const AgentSlots& p : record.placements) {
    std::unique_ptr<AgentState>& agent = agents_[p.agent_id];
    if (!agent) {
      agent = std::make_unique<AgentState>();
      agent->identity.id = p.agent_id;
      agent->registered_time = loop_.Now();
    }
    for (int slot : p.slot_ids) agent->slot_allocations[slot] = record.allocation_id;
    if (p.slot_ids.empty()) agent->zero_slot_allocations.insert(record.allocation_id);
    alloc.running_on.insert(p.agent_id);
  }
}

void AgentResourceManager::RestoreDone() {
  // Agents that held allocations get the usual grace to come back before their work counts as lost.
  for (auto& [agent_id, agent] : agents_) {
    uint64_t generation = agent->generation;
    loop_.PostAfter(ReconnectWait(*agent), [this, agent_id = agent_id, generation] {
      auto a = agents_.find(agent_id);
      if (a != agents_.end() && a->second->generation == generation && !a->second->connection) {
        ForgetAgent(agent_id, "did not reconnect after the master restarted");
      }
    });
  }
}

std::vector<scheduler::QueuedJob> AgentResourceManager::QueueOrder(const std::string& pool) const {
  return scheduler::JobQueue(pools_.at(pool).scheduler, PoolSnapshotOf(pool));
}

std::vector<QueuedJobView> AgentResourceManager::JobQueue() const {
  std::vector<QueuedJobView> out;
  for (const auto& [name, pool] : pools_) {
    std::vector<QueuedJobView> views = QueueViews(name, pool.scheduler, PoolSnapshotOf(name), [this](const std::string& id) {
      return allocations_.at(id).backfilled;
    });
    out.insert(out.end(), views.begin(), views.end());
  }
  return out;
}

std::optional<Rendezvous> AgentResourceManager::RendezvousOf(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || a->second.placements.empty()) return std::nullopt;
  Rendezvous out;
  for (const AgentSlots& p : a->second.placements) {
    auto agent = agents_.find(p.agent_id);
    std::string address = agent != agents_.end() ? agent->second->identity.address : "";
    out.addresses.push_back(address.empty() ? "127.0.0.1" : address);
    out.slots.push_back(static_cast<int>(p.slot_ids.size()));
  }
  return out;
}

std::optional<std::string> AgentResourceManager::ChiefAddress(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || a->second.placements.empty()) return std::nullopt;
  auto agent = agents_.find(a->second.placements.front().agent_id);
  if (agent == agents_.end() || agent->second->identity.address.empty()) return std::nullopt;
  return agent->second->identity.address;
}

AgentSummary AgentResourceManager::SummaryOf(const AgentState& agent) const {
  return {agent.identity, agent.registered_time, agent.slots, agent.slot_allocations, agent.enabled, agent.draining,
          agent.disabled_slots};
}

std::vector<AgentSummary> AgentResourceManager::Agents() const {
  std::vector<AgentSummary> out;
  for (const auto& [id, agent] : agents_) {
    if (agent->hello_received) out.push_back(SummaryOf(*agent));
  }
  return out;
}

absl::StatusOr<AgentResourceManager::AgentState*> AgentResourceManager::ConnectedAgent(const std::string& agent_id) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end() || !it->second->hello_received) {
    return absl::NotFoundError(absl::StrCat("agent ", agent_id, " is not connected"));
  }
  return it->second.get();
}

std::set<std::string> AgentResourceManager::AllocationsOn(const AgentState& agent) const {
  std::set<std::string> out(agent.zero_slot_allocations.begin(), agent.zero_slot_allocations.end());
  for (const auto& [slot, id] : agent.slot_allocations) out.insert(id);
  return out;
}

absl::StatusOr<AgentSummary> AgentResourceManager::SetAgentEnabled(const std::string& agent_id, bool enabled,
                                                                   bool drain) {
  absl::StatusOr<AgentState*> found = ConnectedAgent(agent_id);
  if (!found.ok()) return found.status();
  AgentState& agent = **found;
  agent.enabled = enabled;
  agent.draining = !enabled && drain;
  spdlog::info("agent {} {}", agent_id, enabled ? "enabled" : drain ? "disabled (draining)" : "disabled");
  if (!enabled && !drain) ReclaimDisabledWork(AllocationsOn(agent), absl::StrCat("Agent ", agent_id, " was disabled"));
  return SummaryOf(agent);
}

absl::StatusOr<AgentSummary> AgentResourceManager::SetSlotEnabled(const std::string& agent_id, int slot_id,
                                                                  bool enabled, bool drain) {
  absl::StatusOr<AgentState*> found = ConnectedAgent(agent_id);
  if (!found.ok()) return found.status();
  AgentState& agent = **found;
  auto is_slot = [&](const api::SlotInfo& s) { return s.id == slot_id; };
  if (std::none_of(agent.slots.begin(), agent.slots.end(), is_slot)) {
    return absl::NotFoundError(absl::StrCat("slot ", slot_id, " not found on agent ", agent_id,
                                            "; `det slot list` shows the slots of every agent"));
  }
  if (enabled) {
    agent.disabled_slots.erase(slot_id);
  } else {
    agent.disabled_slots.insert(slot_id);
  }
  spdlog::info("agent {} slot {} {}", agent_id, slot_id, enabled ? "enabled" : drain ? "disabled (draining)" : "disabled");
  if (auto used = agent.slot_allocations.find(slot_id); !enabled && !drain && used != agent.slot_allocations.end()) {
    ReclaimDisabledWork({used->second}, absl::StrCat("Slot ", slot_id, " of agent ", agent_id, " was disabled"));
  }
  return SummaryOf(agent);
}

void AgentResourceManager::ReclaimDisabledWork(const std::set<std::string>& allocation_ids, const std::string& why) {
  for (const std::string& id : allocation_ids) events_.ReclaimRequested(id, why, true);
}

absl::StatusOr<WebSocketHandlers> AgentResourceManager::ConnectAgent(AgentIdentity identity,
                                                                     std::shared_ptr<WebSocketConnection> connection) {
  if (identity.id.empty()) return absl::InvalidArgumentError("agent id is required (?id=...)");
  std::string id = identity.id;
  loop_.Post([this, identity = std::move(identity), connection]() mutable {
    auto it = agents_.find(identity.id);
    if (it != agents_.end()) {
      spdlog::warn("agent {} reconnected; replacing its previous connection", identity.id);
      if (it->second->connection) it->second->connection->Close();
      it->second->identity = std::move(identity);  // a recovered agent knew only its id until now
      it->second->connection = connection;
      it->second->hello_received = false;
      it->second->generation++;
      return;
    }
    auto agent = std::make_unique<AgentState>();
    agent->identity = std::move(identity);
    agent->connection = connection;
    agent->registered_time = loop_.Now();
    spdlog::info("agent {} connected (pool {})", agent->identity.id, agent->identity.resource_pool);
    agents_[agent->identity.id] = std::move(agent);
  });
  WebSocketHandlers handlers;
  handlers.on_message = [this, id](std::string text) {
    loop_.Post([this, id, text = std::move(text)] { OnAgentMessage(id, text); });
  };
  std::weak_ptr<WebSocketConnection> weak = connection;
  handlers.on_close = [this, id, weak] {
    loop_.Post([this, id, weak] {
      if (auto conn = weak.lock()) OnAgentClosed(id, conn);
    });
  };
  return handlers;
}

void AgentResourceManager::OnAgentMessage(const std::string& agent_id, const std::string& text) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end()) return;
  AgentState& agent = *it->second;
  absl::StatusOr<api::AgentMessage> msg = api::DecodeAgentMessage(text);
  if (!msg.ok()) {
    spdlog::warn("agent {}: bad message: {}", agent_id, msg.status().ToString());
    return;
  }
  if (auto* hello = std::get_if<api::AgentHello>(&*msg)) {
    if (std::optional<std::string> why = SlotTypeConflict(agent_id, agent.identity.resource_pool, hello->slots)) {
      // A pool's slots are of one type: a GPU trial must never land on a CPU slot of the same pool.
      spdlog::warn("refusing agent {}: {}", agent_id, *why);
      agent.Send(api::AgentRefused{*why});
      agent.connection->Close();
      if (AllocationsOn(agent).empty()) agents_.erase(it);
      return;
    }
    agent.slots = hello->slots;
    agent.hello_received = true;
    spdlog::info("agent {} registered with {} slot(s)", agent_id, agent.slots.size());
    // Allocations assigned to this agent that it no longer runs ended while it was away.
    std::set<std::string> lost = AllocationsOn(agent);
    for (const std::string& running : hello->running_allocations) lost.erase(running);
    for (const std::string& alloc_id : lost) ReportExit(alloc_id, -1, ExitKind::kAgentLost, "the agent no longer runs it");
    // Processes the master no longer knows of (their trial ended while the agent was away) must stop.
    for (const std::string& alloc_id : hello->running_allocations) {
      if (!allocations_.count(alloc_id)) agent.Send(api::KillTask{alloc_id, 10});
    }
    Schedule();
  } else if (auto* started = std::get_if<api::TaskStarted>(&*msg)) {
    if (!allocations_.count(started->allocation_id)) return;
    events_.ProcessStarted(started->allocation_id, absl::StrCat("agent ", agent_id), started->pid);
  } else if (auto* exited = std::get_if<api::TaskExited>(&*msg)) {
    OnTaskExited(agent_id, *exited);
  }
}

std::optional<std::string> AgentResourceManager::SlotTypeConflict(const std::string& agent_id, const std::string& pool,
                                                                  const std::vector<api::SlotInfo>& slots) const {
  if (slots.empty()) return std::nullopt;  // a zero-slot agent serves any pool's aux tasks
  for (const auto& [id, other] : agents_) {
    if (id == agent_id || other->identity.resource_pool != pool || other->slots.empty()) continue;
    if (other->slots.front().type != slots.front().type) {
      return absl::StrCat("agent ", agent_id, " offers ", slots.front().type, " slots but resource pool \"", pool,
                          "\" has ", other->slots.front().type, " slots (agent ", id,
                          "); a pool's slots are of one type: start it with --resource-pool naming a pool of ",
                          slots.front().type, " agents");
    }
  }
  return std::nullopt;
}

void AgentResourceManager::OnAgentClosed(const std::string& agent_id,
                                         const std::shared_ptr<WebSocketConnection>& connection) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end() || it->second->connection != connection) return;
  AgentState& agent = *it->second;
  agent.connection = nullptr;
  agent.hello_received = false;
  uint64_t generation = agent.generation;
  if (AllocationsOn(agent).empty()) return ForgetAgent(agent_id, "disconnected");
  std::chrono::milliseconds wait = ReconnectWait(agent);
  spdlog::warn("agent {} disconnected; its tasks keep their slots for {} ms while it may reconnect", agent_id,
               wait.count());
  loop_.PostAfter(wait, [this, agent_id, generation] {
    auto a = agents_.find(agent_id);
    if (a != agents_.end() && a->second->generation == generation && !a->second->connection) {
      ForgetAgent(agent_id, "did not reconnect in time");
    }
  });
}

std::chrono::milliseconds AgentResourceManager::ReconnectWait(const AgentState& agent) const {
  auto wait_of = [this](const PoolOptions& pool) {
    return pool.agent_reconnect_wait.value_or(options_.agent_reconnect_grace);
  };
  if (auto pool = pools_.find(agent.identity.resource_pool); pool != pools_.end()) return wait_of(pool->second);
  std::chrono::milliseconds longest{0};
  for (const auto& [name, pool] : pools_) longest = std::max(longest, wait_of(pool));
  return longest;
}

void AgentResourceManager::ForgetAgent(const std::string& agent_id, const std::string& why) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end()) return;
  spdlog::warn("agent {} {}; forgetting it", agent_id, why);
  std::set<std::string> running = AllocationsOn(*it->second);
  agents_.erase(it);
  for (const std::string& alloc_id : running) {
    auto a = allocations_.find(alloc_id);
    if (a == allocations_.end()) continue;
    a->second.running_on.erase(agent_id);
    ReportExit(alloc_id, -1, ExitKind::kAgentLost, absl::StrCat("agent ", agent_id, " was lost"));
  }
  Schedule();
}

void AgentResourceManager::OnTaskExited(const std::string& agent_id, const api::TaskExited& exited) {
  auto it = allocations_.find(exited.allocation_id);
  if (it == allocations_.end()) return;
  Managed& alloc = it->second;
  alloc.running_on.erase(agent_id);
  // A gang ends with its first failure: the other processes are killed, and the first failure is
  // what the allocation reports.
  if (!alloc.exit_code || (*alloc.exit_code == 0 && exited.exit_code != 0)) {
    alloc.exit_code = exited.exit_code;
    alloc.exit_error = exited.error;
  }
  if (!alloc.running_on.empty()) {
    if (exited.exit_code != 0) {
      events_.Log(exited.allocation_id, absl::StrCat("The process on agent ", agent_id, " exited with code ",
                                                     exited.exit_code, "; killing the allocation's other processes"));
      SendKills(alloc);
    }
    return;
  }
  int exit_code = *alloc.exit_code;
  std::string why = alloc.exit_error.empty() ? absl::StrCat("exited with code ", exit_code)
                                             : absl::StrCat("failed to start: ", alloc.exit_error);
  ReportExit(exited.allocation_id, exit_code, ExitKind::kProcessExited, why);
  Schedule();
}

}  // namespace det::master

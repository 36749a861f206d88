#include "master/rm/in_memory_resource_manager.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace det::master {

InMemoryResourceManager::InMemoryResourceManager(AllocationEvents& events, std::string cluster_name,
                                                 std::vector<PoolOptions> pools)
    : events_(events), cluster_name_(std::move(cluster_name)) {
  for (PoolOptions& pool : pools) pools_[pool.name] = std::move(pool);
}

void InMemoryResourceManager::AddNode(const std::string& pool, const std::string& node, int slots) {
  nodes_[node] = Node{.pool = pool, .slots = slots, .used = {}};
  Schedule();
}

void InMemoryResourceManager::RemoveNode(const std::string& node) {
  std::set<std::string> lost;
  for (const auto& [slot, id] : nodes_[node].used) lost.insert(id);
  nodes_.erase(node);
  for (const std::string& id : lost) ReportExit(id, -1, ExitKind::kAgentLost, absl::StrCat("node ", node, " was lost"));
  Schedule();
}

void InMemoryResourceManager::ReportRunning(const std::string& node, const std::set<std::string>& allocation_ids) {
  std::set<std::string> lost;
  for (const auto& [slot, id] : nodes_[node].used) {
    if (!allocation_ids.count(id)) lost.insert(id);
  }
  for (const std::string& id : lost) ReportExit(id, -1, ExitKind::kAgentLost, "the node no longer runs it");
  Schedule();
}

void InMemoryResourceManager::ProcessExits(const std::string& allocation_id, const std::string& node, int exit_code) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || !a->second.running_on.erase(node)) return;
  Managed& alloc = a->second;
  if (!alloc.exit_code || (*alloc.exit_code == 0 && exit_code != 0)) alloc.exit_code = exit_code;
  if (!alloc.running_on.empty()) {
    if (exit_code != 0) Kill(allocation_id);  // a gang ends with its first failure
    return;
  }
  int code = *alloc.exit_code;
  ReportExit(allocation_id, code, ExitKind::kProcessExited, absl::StrCat("exited with code ", code));
  Schedule();
}

std::vector<PoolSummary> InMemoryResourceManager::Pools() const {
  std::vector<PoolSummary> out;
  for (const auto& [name, pool] : pools_) {
    PoolSummary summary{.options = pool, .cluster_name = cluster_name_};
    for (const auto& [id, node] : nodes_) {
      if (node.pool != name) continue;
      summary.num_agents += 1;
      summary.slots_available += node.slots;
      summary.slots_used += static_cast<int>(node.used.size());
    }
    out.push_back(std::move(summary));
  }
  return out;
}

int InMemoryResourceManager::Capacity(const std::string& pool) const {
  int total = 0;
  for (const auto& [id, node] : nodes_) {
    if (node.pool == pool) total += node.slots;
  }
  return total;
}

std::map<std::string, std::vector<int>> InMemoryResourceManager::FreeSlots(const std::string& pool,
                                                                           const std::set<std::string>& blocked) const {
  std::map<std::string, std::vector<int>> free;
  for (const auto& [id, node] : nodes_) {
    if (node.pool != pool || blocked.count(id)) continue;
    for (int s = 0; s < node.slots; ++s) {
      if (!node.used.count(s)) free[id].push_back(s);
    }
  }
  return free;
}

std::optional<std::vector<AgentSlots>> InMemoryResourceManager::Fit(std::map<std::string, std::vector<int>> free,
                                                                    int slots, bool single_node) {
  for (const auto& [node, ids] : free) {
    if (static_cast<int>(ids.size()) >= slots) {
      return std::vector<AgentSlots>{{node, std::vector<int>(ids.begin(), ids.begin() + slots), {}}};
    }
  }
  if (single_node) return std::nullopt;
  std::vector<std::pair<std::string, std::vector<int>>> biggest(free.begin(), free.end());
  std::stable_sort(biggest.begin(), biggest.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<AgentSlots> gang;
  int left = slots;
  for (auto& [node, ids] : biggest) {
    if (left == 0) break;
    int take = std::min(left, static_cast<int>(ids.size()));
    if (take == 0) continue;
    gang.push_back({node, std::vector<int>(ids.begin(), ids.begin() + take), {}});
    left -= take;
  }
  if (left > 0) return std::nullopt;
  return gang;
}

absl::Status InMemoryResourceManager::CheckFits(const std::string& pool, int slots, bool single_node,
                                                const std::set<std::string>& blocked) const {
  if (Capacity(pool) == 0) return absl::OkStatus();  // nodes may come
  std::map<std::string, std::vector<int>> all;
  for (const auto& [id, node] : nodes_) {
    if (node.pool != pool || blocked.count(id)) continue;
    for (int s = 0; s < node.slots; ++s) all[id].push_back(s);
  }
  if (Fit(all, slots, single_node)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("resources.slots: ", slots, " slot(s) can never fit in pool ", pool,
                                                 " of resource manager ", cluster_name_));
}

void InMemoryResourceManager::Request(const AllocationRequest& request) {
  allocations_[request.allocation_id] = Managed{.request = request, .order = next_order_++};
}

int InMemoryResourceManager::PriorityOf(const JobAttributes& job, const std::string& pool) const {
  return job.priority.value_or(pools_.at(pool).scheduler.default_priority);
}

std::vector<const InMemoryResourceManager::Managed*> InMemoryResourceManager::PendingInOrder(
    const std::string& pool) const {
  std::vector<std::pair<std::pair<int, int64_t>, const Managed*>> pending;
  for (const auto& [id, alloc] : allocations_) {
    if (!alloc.placements.empty()) continue;
    JobAttributes job = events_.JobOf(id);
    if (job.resource_pool == pool) pending.push_back({{PriorityOf(job, pool), alloc.order}, &alloc});
  }
  std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Managed*> out;
  for (const auto& [key, alloc] : pending) out.push_back(alloc);
  return out;
}

void InMemoryResourceManager::Schedule() {
  if (!events_.MayStartWork()) return;
  for (const auto& [pool, options] : pools_) {
    for (const Managed* waiting : PendingInOrder(pool)) {
      const std::string id = waiting->request.allocation_id;
      JobAttributes job = events_.JobOf(id);
      std::set<std::string> blocked(job.blocked_agents.begin(), job.blocked_agents.end());
      if (auto placements = Fit(FreeSlots(pool, blocked), waiting->request.slots, job.single_node)) {
        Place(allocations_.at(id), *std::move(placements));
        continue;
      }
      Managed& alloc = allocations_.at(id);
      if (!CheckFits(pool, alloc.request.slots, job.single_node, blocked).ok() && !alloc.waiting_logged) {
        alloc.waiting_logged = true;
        events_.Log(id, absl::StrCat("The nodes now in pool ", pool, " cannot hold ", alloc.request.slots,
                                     " slot(s); waiting for more nodes"));
      }
      if (options.scheduler.preemption) AskForSlots(pool, alloc.request.slots, PriorityOf(job, pool));
      break;  // strict priority order: nothing behind a blocked request starts
    }
  }
}

void InMemoryResourceManager::AskForSlots(const std::string& pool, int slots, int priority) {
  int free = 0;
  for (const auto& [node, ids] : FreeSlots(pool, {})) free += static_cast<int>(ids.size());
  std::vector<std::pair<int64_t, Managed*>> candidates;  // newest first
  for (auto& [id, alloc] : allocations_) {
    if (alloc.placements.empty() || alloc.pool != pool) continue;
    JobAttributes job = events_.JobOf(id);
    if (!job.preemptible || PriorityOf(job, pool) <= priority) continue;
    if (alloc.reclaim_asked) free += alloc.request.slots;  // on its way out
    else candidates.push_back({-alloc.order, &alloc});
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, alloc] : candidates) {
    if (free >= slots) break;
    alloc->reclaim_asked = true;
    free += alloc->request.slots;
    events_.ReclaimRequested(alloc->request.allocation_id,
                             absl::StrCat("Resource manager ", cluster_name_, " preempts this task for higher-priority work in pool ", pool),
                             false);
  }
}

void InMemoryResourceManager::Place(Managed& alloc, std::vector<AgentSlots> placements) {
  const std::string& id = alloc.request.allocation_id;
  alloc.pool = events_.JobOf(id).resource_pool;
  alloc.placements = std::move(placements);
  for (const AgentSlots& p : alloc.placements) {
    alloc.running_on.insert(p.agent_id);
    for (int s : p.slot_ids) nodes_.at(p.agent_id).used[s] = id;
  }
  events_.Placed(id, Placement{.pool = alloc.pool, .processes = alloc.placements, .backfilled = false});
}

void InMemoryResourceManager::Start(const std::string& allocation_id, const ProcessLaunch&) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  a->second.started = true;
  int pid = 1000;
  for (const AgentSlots& p : a->second.placements) events_.ProcessStarted(allocation_id, absl::StrCat("node ", p.agent_id), pid++);
}

void InMemoryResourceManager::Kill(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || !a->second.started) return;
  for (const std::string& node : a->second.running_on) kills_.push_back(absl::StrCat(allocation_id, "@", node));
}

void InMemoryResourceManager::FreeSlotsOf(const Managed& alloc) {
  for (const AgentSlots& p : alloc.placements) {
    auto node = nodes_.find(p.agent_id);
    if (node == nodes_.end()) continue;
    for (int s : p.slot_ids) node->second.used.erase(s);
  }
}

void InMemoryResourceManager::Requeue(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  FreeSlotsOf(a->second);
  a->second = Managed{.request = a->second.request, .order = a->second.order};
}

void InMemoryResourceManager::Release(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Kill(allocation_id);
  FreeSlotsOf(a->second);
  allocations_.erase(a);
}

void InMemoryResourceManager::ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind,
                                         const std::string& why) {
  Release(allocation_id);
  events_.Exited(allocation_id, exit_code, kind, why);
}

void InMemoryResourceManager::Restore(const Allocation& record) {
  Managed& alloc = allocations_[record.allocation_id];
  alloc = Managed{.request = {.allocation_id = record.allocation_id, .task_id = record.task_id, .slots = record.slots},
                  .order = next_order_++,
                  .pool = record.resource_pool,
                  .placements = record.placements,
                  .started = true};
  for (const AgentSlots& p : record.placements) {
    alloc.running_on.insert(p.agent_id);
    Node& node = nodes_[p.agent_id];
    node.pool = record.resource_pool;
    for (int s : p.slot_ids) {
      node.used[s] = record.allocation_id;
      node.slots = std::max(node.slots, s + 1);
    }
  }
}

std::vector<QueuedJobView> InMemoryResourceManager::JobQueue() const {
  std::vector<QueuedJobView> out;
  for (const auto& [pool, options] : pools_) {
    int ahead = 0;
    for (const scheduler::QueuedJob& queued : QueueOrder(pool)) {
      QueuedJobView view{.job_id = queued.job_id, .resource_pool = pool, .jobs_ahead = ahead++};
      bool scheduled = false;
      for (const auto& [id, alloc] : allocations_) {
        JobAttributes job = events_.JobOf(id);
        if (job.job_id != queued.job_id) continue;
        view.requested_slots += alloc.request.slots;
        if (!alloc.placements.empty()) view.allocated_slots += alloc.request.slots;
        scheduled = scheduled || !alloc.placements.empty();
        view.priority = PriorityOf(job, pool);
        view.weight = job.weight;
        view.preemptible = job.preemptible;
      }
      view.state = scheduled ? "STATE_SCHEDULED" : "STATE_QUEUED";
      out.push_back(std::move(view));
    }
  }
  return out;
}

std::vector<scheduler::QueuedJob> InMemoryResourceManager::QueueOrder(const std::string& pool) const {
  std::vector<scheduler::QueuedJob> out;
  std::set<std::string> seen;
  std::vector<std::pair<std::pair<int, int64_t>, std::string>> jobs;
  for (const auto& [id, alloc] : allocations_) {
    JobAttributes job = events_.JobOf(id);
    if (job.resource_pool != pool || !seen.insert(job.job_id).second) continue;
    jobs.push_back({{PriorityOf(job, pool), alloc.order}, job.job_id});
  }
  std::sort(jobs.begin(), jobs.end());
  for (const auto& [key, job_id] : jobs) {
    scheduler::QueuedJob queued;
    queued.job_id = job_id;
    queued.priority = key.first;
    out.push_back(std::move(queued));
  }
  return out;
}

std::optional<std::string> InMemoryResourceManager::ChiefAddress(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || a->second.placements.empty()) return std::nullopt;
  return "127.0.0.1";  // its "nodes" are this machine
}

std::optional<Rendezvous> InMemoryResourceManager::RendezvousOf(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || a->second.placements.empty()) return std::nullopt;
  Rendezvous out;
  for (const AgentSlots& p : a->second.placements) {
    out.addresses.push_back("127.0.0.1");
    out.slots.push_back(static_cast<int>(p.slot_ids.size()));
  }
  return out;
}

std::vector<AgentSummary> InMemoryResourceManager::Agents() const {
  std::vector<AgentSummary> out;
  for (const auto& [id, node] : nodes_) {
    AgentSummary agent;
    agent.identity = {.id = id, .resource_pool = node.pool, .hostname = id};
    for (int s = 0; s < node.slots; ++s) agent.slots.push_back(api::SlotInfo{.id = s, .type = "cpu"});
    agent.slot_allocations = node.used;
    out.push_back(std::move(agent));
  }
  return out;
}

absl::StatusOr<AgentSummary> InMemoryResourceManager::SetAgentEnabled(const std::string& agent_id, bool, bool) {
  return absl::FailedPreconditionError(
      absl::StrCat("node ", agent_id, " belongs to resource manager ", cluster_name_, ", which cannot disable nodes"));
}

absl::StatusOr<AgentSummary> InMemoryResourceManager::SetSlotEnabled(const std::string& agent_id, int, bool, bool) {
  return SetAgentEnabled(agent_id, false, false);
}

absl::StatusOr<WebSocketHandlers> InMemoryResourceManager::ConnectAgent(AgentIdentity agent,
                                                                        std::shared_ptr<WebSocketConnection>) {
  return absl::InvalidArgumentError(absl::StrCat("agent ", agent.id, ": resource pool ", agent.resource_pool,
                                                 " belongs to resource manager ", cluster_name_,
                                                 ", which runs no agents"));
}

}  // namespace det::master

#pragma once
// Test helper (header only): the invariants every Decision must satisfy for its snapshot.
// Returns "" when they hold, else a description of the first violation.
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/snapshot.h"

namespace det::scheduler {

inline std::string CheckDecision(const PoolSnapshot& pool, const Decision& d) {
  std::map<std::string, const AgentState*> agents;
  for (const AgentState& a : pool.agents) agents[a.id] = &a;
  std::map<std::string, const PendingRequest*> pending;
  for (const PendingRequest& r : pool.pending) pending[r.allocation_id] = &r;
  std::map<std::string, const RunningAllocation*> running;
  for (const RunningAllocation& a : pool.running) running[a.allocation_id] = &a;
  std::set<std::string> infeasible(d.infeasible.begin(), d.infeasible.end());

  std::set<std::pair<std::string, int>> taken;
  std::map<std::string, int> aux;
  std::set<std::string> started;
  for (const StartDecision& s : d.to_start) {
    if (!started.insert(s.allocation_id).second) return "started twice: " + s.allocation_id;
    auto it = pending.find(s.allocation_id);
    if (it == pending.end()) return "started a request that is not pending: " + s.allocation_id;
    if (infeasible.count(s.allocation_id))
      return "started an infeasible request: " + s.allocation_id;
    const PendingRequest& r = *it->second;
    if (s.placements.empty()) return "no placement for " + r.allocation_id;
    if (r.slots == 0) {
      if (s.placements.size() != 1 || !s.placements[0].slot_ids.empty()) {
        return "zero-slot request with slots or several agents: " + r.allocation_id;
      }
    }
    int total = 0;
    std::set<std::string> used_agents;
    for (const SlotPlacement& p : s.placements) {
      auto a = agents.find(p.agent_id);
      if (a == agents.end()) return "unknown agent " + p.agent_id;
      const AgentState& agent = *a->second;
      if (!agent.enabled || agent.draining) return "work placed on unusable agent " + agent.id;
      if (!used_agents.insert(agent.id).second) return "agent listed twice for " + r.allocation_id;
      if (r.slots == 0) {
        if (agent.running_zero_slot + ++aux[agent.id] > agent.max_aux_containers) {
          return "aux capacity exceeded on " + agent.id;
        }
        continue;
      }
      if (p.slot_ids.empty()) return "empty placement for slotted request " + r.allocation_id;
      if (s.placements.size() > 1 &&
          static_cast<int>(agent.free_slot_ids.size()) != agent.total_slots) {
        return "gang of " + r.allocation_id + " uses busy agent " + agent.id;
      }
      for (int slot : p.slot_ids) {
        bool free = false;
        for (int f : agent.free_slot_ids) free = free || f == slot;
        if (!free) return absl::StrCat("slot ", agent.id, ":", slot, " is not free");
        if (!taken.insert({agent.id, slot}).second) {
          return absl::StrCat("slot ", agent.id, ":", slot, " double-booked");
        }
      }
      total += static_cast<int>(p.slot_ids.size());
    }
    if (r.slots > 0 && total != r.slots) {
      return absl::StrCat(r.allocation_id, " got ", total, " slots, wanted ", r.slots);
    }
    if (r.single_node && s.placements.size() != 1) return "single-node request on several agents";
  }
  std::set<std::string> preempted;
  for (const std::string& id : d.to_preempt) {
    if (!preempted.insert(id).second) return "preempted twice: " + id;
    auto it = running.find(id);
    if (it == running.end()) return "preempted an allocation that is not running: " + id;
    if (!it->second->preemptible) return "preempted a non-preemptible allocation: " + id;
  }
  return "";
}

}  // namespace det::scheduler

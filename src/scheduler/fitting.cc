#include "scheduler/fitting.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace det::scheduler {

void InvariantBroken(const std::string& what) {
  std::fprintf(stderr, "scheduler invariant broken: %s\n", what.c_str());
  std::abort();
}

namespace {

long long FailKey(int slots, bool single_node) {
  return static_cast<long long>(slots) * 2 + (single_node ? 1 : 0);
}

}  // namespace

PoolLedger::PoolLedger(const PoolSnapshot& pool, FittingPolicy policy,
                       bool allow_heterogeneous_fits)
    : policy_(policy), heterogeneous_(allow_heterogeneous_fits) {
  agents_.reserve(pool.agents.size());
  int max_total = 0;
  for (const AgentState& a : pool.agents) {
    Agent agent;
    agent.id = a.id;
    agent.total = std::max(0, a.total_slots);
    agent.free = a.free_slot_ids;
    std::sort(agent.free.begin(), agent.free.end());
    agent.usable = a.enabled && !a.draining;
    agent.aux_capacity = std::max(0, a.max_aux_containers);
    agent.aux_used = std::max(0, a.running_zero_slot);
    max_total = std::max(max_total, agent.total);
    agents_.push_back(std::move(agent));
  }
  std::sort(agents_.begin(), agents_.end(),
            [](const Agent& a, const Agent& b) { return a.id < b.id; });
  by_free_.resize(max_total + 1);
  for (int i = 0; i < static_cast<int>(agents_.size()); ++i) {
    index_[agents_[i].id] = i;
    Reindex(i);
  }
}

int PoolLedger::Index(const std::string& agent_id) const {
  auto it = index_.find(agent_id);
  if (it == index_.end()) InvariantBroken("unknown agent " + agent_id);
  return it->second;
}

void PoolLedger::Unindex(int i) {
  const Agent& a = agents_[i];
  if (!a.usable || a.total == 0) return;
  int free = static_cast<int>(a.free.size());
  by_free_[std::min(free, a.total)].erase(i);
  by_ratio_.erase({-static_cast<double>(free) / a.total, i});
  if (free == a.total) {
    auto it = idle_by_size_.find(a.total);
    if (it != idle_by_size_.end()) {
      it->second.erase(i);
      if (it->second.empty()) idle_by_size_.erase(it);
    }
  }
}

void PoolLedger::Reindex(int i) {
  const Agent& a = agents_[i];
  if (!a.usable || a.total == 0) return;
  int free = static_cast<int>(a.free.size());
  if (free > a.total) InvariantBroken("agent " + a.id + " has more free slots than slots");
  by_free_[free].insert(i);
  by_ratio_.insert({-static_cast<double>(free) / a.total, i});
  if (free == a.total) idle_by_size_[a.total].insert(i);
}

int PoolLedger::FreeSlots(const std::string& agent_id) const {
  return static_cast<int>(agents_[Index(agent_id)].free.size());
}

SlotPlacement PoolLedger::TakeLowest(int i, int n) const {
  const Agent& a = agents_[i];
  return SlotPlacement{a.id, std::vector<int>(a.free.begin(), a.free.begin() + n)};
}

std::optional<std::vector<SlotPlacement>> PoolLedger::Find(
    int slots, bool single_node, const std::vector<std::string>& blocked) const {
  if (slots < 0) return std::nullopt;
  std::set<int> skip;
  for (const std::string& id : blocked) {
    if (auto it = index_.find(id); it != index_.end()) skip.insert(it->second);
  }
  long long key = FailKey(slots, single_node);
  if (skip.empty() && failed_.count(key)) return std::nullopt;
  std::optional<std::vector<SlotPlacement>> fit;
  if (slots == 0) {
    fit = FindZeroSlot(skip);
  } else {
    fit = FindSingle(slots, skip);
    if (!fit && !single_node && slots > 1) fit = FindGang(slots, skip);
  }
  if (!fit && skip.empty()) failed_.insert(key);
  return fit;
}

std::optional<std::vector<SlotPlacement>> PoolLedger::FindSingle(
    int slots, const std::set<int>& blocked) const {
  int max_k = static_cast<int>(by_free_.size()) - 1;
  if (policy_ == FittingPolicy::kBest) {
    for (int k = slots; k <= max_k; ++k) {
      for (int i : by_free_[k]) {
        if (!blocked.count(i)) return std::vector<SlotPlacement>{TakeLowest(i, slots)};
      }
    }
    return std::nullopt;
  }
  bool any = false;
  for (int k = slots; k <= max_k && !any; ++k) any = !by_free_[k].empty();
  if (!any) return std::nullopt;
  for (const auto& [neg_ratio, i] : by_ratio_) {
    if (static_cast<int>(agents_[i].free.size()) >= slots && !blocked.count(i)) {
      return std::vector<SlotPlacement>{TakeLowest(i, slots)};
    }
  }
  return std::nullopt;
}

std::optional<std::vector<SlotPlacement>> PoolLedger::FindGang(int slots,
                                                               const std::set<int>& blocked) const {
  for (const auto& [n, all] : idle_by_size_) {
    std::vector<int> members;
    for (int i : all) {
      if (!blocked.count(i)) members.push_back(i);
    }
    if (slots % n != 0 || static_cast<long long>(members.size()) * n < slots) continue;
    std::vector<SlotPlacement> out;
    auto it = members.begin();
    for (int taken = 0; taken < slots; taken += n, ++it) out.push_back(TakeLowest(*it, n));
    return out;
  }
  if (!heterogeneous_) return std::nullopt;
  std::vector<SlotPlacement> out;
  int need = slots;
  for (const auto& [n, members] : idle_by_size_) {
    for (int i : members) {
      if (blocked.count(i)) continue;
      int take = std::min(n, need);
      out.push_back(TakeLowest(i, take));
      need -= take;
      if (need == 0) return out;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<SlotPlacement>> PoolLedger::FindZeroSlot(
    const std::set<int>& blocked) const {
  int best = -1;
  for (int i = 0; i < static_cast<int>(agents_.size()); ++i) {
    const Agent& a = agents_[i];
    int room = a.aux_capacity - a.aux_used;
    if (!a.usable || room <= 0 || blocked.count(i)) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const Agent& b = agents_[best];
    int best_room = b.aux_capacity - b.aux_used;
    bool better = policy_ == FittingPolicy::kBest
                      ? room < best_room
                      : static_cast<long long>(room) * b.aux_capacity >
                            static_cast<long long>(best_room) * a.aux_capacity;
    if (better) best = i;
  }
  if (best < 0) return std::nullopt;
  return std::vector<SlotPlacement>{SlotPlacement{agents_[best].id, {}}};
}

void PoolLedger::Take(const std::vector<SlotPlacement>& placements) {
  for (const SlotPlacement& p : placements) Take(p);
}

void PoolLedger::Give(const std::vector<SlotPlacement>& placements) {
  failed_.clear();
  for (const SlotPlacement& p : placements) Give(p);
}

void PoolLedger::Take(const SlotPlacement& p) {
  int i = AgentIndex(p.agent_id);
  if (i < 0) return;  // a running allocation on a departed agent
  Agent& a = agents_[i];
  if (p.slot_ids.empty()) {
    ++a.aux_used;
    return;
  }
  Unindex(i);
  for (int slot : p.slot_ids) {
    auto it = std::lower_bound(a.free.begin(), a.free.end(), slot);
    if (it == a.free.end() || *it != slot)
      InvariantBroken("slot " + std::to_string(slot) + " of " + a.id + " is not free");
    a.free.erase(it);
  }
  Reindex(i);
}

void PoolLedger::Give(const SlotPlacement& p) {
  failed_.clear();
  int i = AgentIndex(p.agent_id);
  if (i < 0) return;  // the agent is gone: nothing to return
  Agent& a = agents_[i];
  if (p.slot_ids.empty()) {
    --a.aux_used;
    return;
  }
  Unindex(i);
  for (int slot : p.slot_ids) {
    auto it = std::lower_bound(a.free.begin(), a.free.end(), slot);
    if (it != a.free.end() && *it == slot)
      InvariantBroken("slot " + std::to_string(slot) + " of " + a.id + " is already free");
    a.free.insert(it, slot);
  }
  Reindex(i);
}

int PoolLedger::AgentIndex(const std::string& agent_id) const {
  auto it = index_.find(agent_id);
  return it == index_.end() ? -1 : it->second;
}

FitProbe::FitProbe(const PoolLedger& ledger)
    : ledger_(ledger),
      added_free_(ledger.agents_.size()),
      added_aux_(ledger.agents_.size()),
      touched_(ledger.agents_.size()),
      blocked_(ledger.agents_.size()) {}

void FitProbe::Start(int slots, bool single_node, const std::vector<std::string>& blocked) {
  for (int i : touched_list_) {
    added_free_[i] = added_aux_[i] = 0;
    touched_[i] = false;
  }
  touched_list_.clear();
  for (int i : blocked_list_) blocked_[i] = false;
  blocked_list_.clear();
  slots_ = slots;
  single_node_ = single_node;
  single_agent_fit_ = false;
  for (const std::string& id : blocked) {
    int i = ledger_.AgentIndex(id);
    if (i >= 0 && !blocked_[i]) {
      blocked_[i] = true;
      blocked_list_.push_back(i);
    }
  }
  // The idle agents FindGang would consider: the ledger's, less the blocked ones.
  idle_.clear();
  idle_slots_ = 0;
  for (const auto& [size, members] : ledger_.idle_by_size_) {
    long long count = static_cast<long long>(members.size());
    for (int i : blocked_list_) count -= members.count(i);
    idle_.push_back({size, count});
    idle_slots_ += count * size;
  }
}

bool FitProbe::Eligible(int agent) const {
  return ledger_.agents_[agent].usable && !blocked_[agent];
}

int FitProbe::Free(int agent) const {
  return static_cast<int>(ledger_.agents_[agent].free.size()) + added_free_[agent];
}

int FitProbe::AuxRoom(int agent) const {
  const PoolLedger::Agent& a = ledger_.agents_[agent];
  return a.aux_capacity - a.aux_used + added_aux_[agent];
}

void FitProbe::CountIdle(int size, int delta) {
  idle_slots_ += static_cast<long long>(delta) * size;
  for (auto& [n, count] : idle_) {
    if (n == size) {
      count += delta;
      return;
    }
  }
  idle_.push_back({size, delta});
}

void FitProbe::Add(int agent, int slots) {
  if (agent < 0) return;
  if (!touched_[agent]) {
    touched_[agent] = true;
    touched_list_.push_back(agent);
  }
  if (slots == 0) {
    ++added_aux_[agent];
    if (slots_ == 0 && Eligible(agent) && AuxRoom(agent) > 0) single_agent_fit_ = true;
    return;
  }
  int total = ledger_.agents_[agent].total;
  bool was_idle = Free(agent) == total;
  added_free_[agent] += slots;
  // Only usable agents with slots are indexed for slotted fits (PoolLedger::Reindex).
  if (!Eligible(agent) || total == 0) return;
  if (slots_ > 0 && Free(agent) >= slots_) single_agent_fit_ = true;
  if (!was_idle && Free(agent) == total) CountIdle(total, +1);
}

bool FitProbe::Fits() const {
  if (slots_ < 0) return false;
  if (single_agent_fit_) return true;
  if (single_node_ || slots_ <= 1) return false;  // no gang (PoolLedger::Find)
  for (const auto& [n, count] : idle_) {
    if (slots_ % n == 0 && count * n >= slots_) return true;
  }
  return ledger_.heterogeneous_ && idle_slots_ >= slots_;
}

std::vector<int> FitProbe::AgentsFindDependsOn() const {
  std::vector<int> out;
  for (int i : touched_list_) {
    if (!Eligible(i)) continue;
    int total = ledger_.agents_[i].total;
    bool host = slots_ == 0 ? AuxRoom(i) > 0 : total > 0 && (Free(i) >= slots_ || Free(i) == total);
    if (host) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace det::scheduler

#pragma once
// Fitting (reference §6.2, departures noted): a working copy of a pool's free slots that the
// policies reserve from while they plan a pass, and the placement rules.
//
//  - Single-agent fit: usable agents (enabled, not draining) with at least `slots` free slots;
//    `best` picks the fewest free slots, `worst` the largest free/total ratio; ties by agent id
//    (upstream breaks ties by an MD5 hash distance; we keep it deterministic and readable). The
//    lowest free slot ids are taken.
//  - Gang fit (slots > 1, not single_node, no single agent fits): only fully idle usable agents.
//    Group them by size n, largest first; the first group with count*n >= slots and slots % n == 0
//    gives slots/n whole agents (lowest ids). With allow_heterogeneous_fits, otherwise idle agents
//    are combined largest first (ties by id), the last one possibly in part. All or nothing.
//  - Zero-slot fit: usable agents with aux capacity left (max_aux_containers - running);
//    `best` picks the least aux room left, `worst` the largest ratio; ties by id.
//
// Capacity only shrinks between Give calls, so a failed (slots, single_node) is remembered until
// the next Give: a pass over n requests costs O(n log A) for the common shapes. A request that
// names blocked agents (log policy exclude_node) skips them and is never remembered.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scheduler/snapshot.h"

namespace det::scheduler {

// A broken invariant of the scheduler's own bookkeeping (a bug, never bad input): says which and aborts.
[[noreturn]] void InvariantBroken(const std::string& what);

class PoolLedger {
 public:
  PoolLedger(const PoolSnapshot& pool, FittingPolicy policy, bool allow_heterogeneous_fits);

  // Where a request of `slots` (0 = a zero-slot container) fits now, on none of the `blocked`
  // agents, or nullopt.
  std::optional<std::vector<SlotPlacement>> Find(
      int slots, bool single_node, const std::vector<std::string>& blocked = {}) const;
  // Reserves / returns what a Find (or a running allocation) holds. Slot ids must be free (Take)
  // or held (Give); a placement without slot ids is one aux container.
  void Take(const std::vector<SlotPlacement>& placements);
  void Give(const std::vector<SlotPlacement>& placements);

  // One placement at a time (the preemption search gives back and re-takes single placements).
  void Take(const SlotPlacement& placement);
  void Give(const SlotPlacement& placement);

  int FreeSlots(const std::string& agent_id) const;
  // The ledger's index of an agent (0 .. agent_count() - 1), or -1 for an agent not in the pool.
  int AgentIndex(const std::string& agent_id) const;
  int agent_count() const { return static_cast<int>(agents_.size()); }

 private:
  friend class FitProbe;

  struct Agent {
    std::string id;
    int total = 0;
    std::vector<int> free;  // sorted
    bool usable = false;
    int aux_capacity = 0;
    int aux_used = 0;
  };
  int Index(const std::string& agent_id) const;
  void Unindex(int i);
  void Reindex(int i);
  // `blocked`: agent indexes to skip.
  std::optional<std::vector<SlotPlacement>> FindSingle(int slots,
                                                       const std::set<int>& blocked) const;
  std::optional<std::vector<SlotPlacement>> FindGang(int slots, const std::set<int>& blocked) const;
  std::optional<std::vector<SlotPlacement>> FindZeroSlot(const std::set<int>& blocked) const;
  SlotPlacement TakeLowest(int i, int n) const;

  FittingPolicy policy_;
  bool heterogeneous_;
  std::vector<Agent> agents_;  // sorted by id
  std::unordered_map<std::string, int> index_;
  std::vector<std::set<int>> by_free_;         // [k] = usable agents with k free slots
  std::set<std::pair<double, int>> by_ratio_;  // (-free/total, index) of usable agents with slots
  std::map<int, std::set<int>, std::greater<int>> idle_by_size_;  // usable, all slots free
  mutable std::unordered_set<long long> failed_;  // (slots, single_node) keys known not to fit
};

// A what-if view of a ledger for the preemption search (priority.h): slots and aux containers
// added on agents as if they were given back, without touching the ledger, and whether
// Find(slots, single_node, blocked) would then succeed. The search walks candidates one by one and
// asks after each; giving each one back and calling Find costs a few set updates and a search per
// step, the probe an array update per placement (and a look at the idle agents of each size).
//
// The probe answers only for a ledger on which that Find fails when Start is called (the search
// tries it first): then only the agents touched by Add can make it succeed, and
// AgentsFindDependsOn() names the ones its answer depends on. The ledger must not change between
// Start and the last question. Reusable: Start forgets the previous request in O(agents touched).
class FitProbe {
 public:
  explicit FitProbe(const PoolLedger& ledger);

  // REQUIRES: ledger.Find(slots, single_node, blocked) is nullopt now.
  void Start(int slots, bool single_node, const std::vector<std::string>& blocked);
  // As if `slots` slot ids (0: one aux container) on ledger agent `agent` had been given back.
  // Agent -1 (not in the pool) is ignored, as Give ignores departed agents.
  void Add(int agent, int slots);
  // Whether Find would succeed now.
  bool Fits() const;
  // The touched agents that can host (part of) a fit: usable, not blocked, and with aux room (a
  // zero-slot request) or with `slots` free slots or all of them free (a gang member), ascending.
  // Find on the ledger with only these agents' additions given back answers exactly as with all
  // of them: every other agent is skipped by Find either way.
  std::vector<int> AgentsFindDependsOn() const;

 private:
  bool Eligible(int agent) const;
  int Free(int agent) const;
  int AuxRoom(int agent) const;
  void CountIdle(int size, int delta);

  const PoolLedger& ledger_;
  int slots_ = 0;
  bool single_node_ = false;
  std::vector<int> added_free_;  // by agent index
  std::vector<int> added_aux_;   // by agent index
  std::vector<char> touched_;    // by agent index
  std::vector<int> touched_list_;
  std::vector<char> blocked_;  // by agent index
  std::vector<int> blocked_list_;
  bool single_agent_fit_ = false;  // an Add made one agent able to host the whole request
  std::vector<std::pair<int, long long>> idle_;  // (size, usable idle agents not blocked)
  long long idle_slots_ = 0;                     // their slots together
};

}  // namespace det::scheduler

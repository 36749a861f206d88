#include "scheduler/priority.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "scheduler/feasibility.h"
#include "scheduler/fitting.h"
#include "scheduler/job_queue.h"
#include "scheduler/preemption_candidates.h"

namespace det::scheduler {
namespace {

// The preemptible running allocations of the pass (slotted or zero-slot), least important first:
// the largest (priority, queue key, submission, job), then the newest (start order). The keys are
// read once per allocation, not at every comparison.
std::vector<const RunningAllocation*> InReleaseOrder(const PoolSnapshot& pool, bool zero_slot,
                                                     const SchedulerConfig& config) {
  struct Keyed {
    int priority;
    double queue_key;
    int64_t submission;
    const RunningAllocation* allocation;
  };
  std::vector<Keyed> keyed;
  for (const RunningAllocation& a : pool.running) {
    if ((a.slots == 0) != zero_slot || !a.preemptible) continue;
    keyed.push_back({EffectivePriority(a.priority, config), QueueKey(a), a.job_submission, &a});
  }
  // Descending std::tie(priority, queue key, submission, job, start order, id), element by element.
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (b.queue_key < a.queue_key) return true;
    if (a.queue_key < b.queue_key) return false;
    if (a.submission != b.submission) return a.submission > b.submission;
    const RunningAllocation &x = *a.allocation, &y = *b.allocation;
    return std::tie(y.job_id, y.start_order, y.allocation_id) <
           std::tie(x.job_id, x.start_order, x.allocation_id);
  });
  std::vector<const RunningAllocation*> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed) out.push_back(k.allocation);
  return out;
}

struct Pass {
  const SchedulerConfig& config;
  const PoolSnapshot& pool;
  PoolLedger& ledger;
  Decision& decision;
  std::optional<PreemptionCandidates> candidates;  // least important, newest first
  FitProbe probe{ledger};
  std::set<std::tuple<int, bool, int>> hopeless;  // preemption cannot help these

  int Prio(const std::optional<int>& p) const { return EffectivePriority(p, config); }

  // Whether running allocation `c` is strictly less important than request `t`.
  bool LessImportant(const RunningAllocation& c, const PendingRequest& t) const {
    int cp = Prio(c.priority), tp = Prio(t.priority);
    if (cp != tp) return cp > tp;
    double tk = QueueKey(t), ck = QueueKey(c);
    return std::tie(tk, t.job_submission, t.job_id) < std::tie(ck, c.job_submission, c.job_id);
  }

  // The candidates are sorted by (priority, queue key, submission, job), most important last, so
  // those less important than `t` are a prefix of them; returns its end.
  size_t LessImportantEnd(const PendingRequest& t) const {
    const auto& order = candidates->in_release_order();
    auto end = std::partition_point(order.begin(), order.end(), [&](const RunningAllocation* c) {
      return LessImportant(*c, t);
    });
    return static_cast<size_t>(end - order.begin());
  }

  // Semantics (priority.h): candidates less important than `t` are released one by one, in order,
  // until `t` fits; of those, only the ones holding slots of the fit are preempted. The walk asks
  // FitProbe after each one instead of giving it back to the ledger; the ledger sees only the
  // outcome (ReleaseFor).
  void TryPreempt(const PendingRequest& t) {
    // It may fit once the releases planned earlier in this pass finish.
    if (auto fit = ledger.Find(t.slots, t.single_node, t.blocked_agents)) {
      ledger.Take(*fit);
      return;
    }
    // Requests come in queue order, so within a level the candidates only shrink (and so does the
    // free capacity): a shape preemption could not help stays hopeless for the rest of the level.
    auto key = std::make_tuple(t.slots, t.single_node, Prio(t.priority));
    if (t.blocked_agents.empty() && hopeless.count(key)) return;
    probe.Start(t.slots, t.single_node, t.blocked_agents);
    size_t end = LessImportantEnd(t);
    for (size_t c = candidates->NextUnreleased(0); c < end; c = candidates->NextUnreleased(c + 1)) {
      for (const PreemptionCandidates::Hold& h : candidates->Holds(c)) probe.Add(h.agent, h.slots);
      if (probe.Fits()) {
        ReleaseFor(t, c);
        return;
      }
    }
    if (t.blocked_agents.empty()) hopeless.insert(key);
  }

  // `t` fits once the unreleased candidates up to `last` are given back. Leaves the ledger as the
  // plain search does (every needed candidate given back, the fit taken) and preempts the needed
  // ones, in release order.
  void ReleaseFor(const PendingRequest& t, size_t last) {
    // Find depends only on these agents (FitProbe), so give back only what was walked there.
    std::vector<int> hosts = probe.AgentsFindDependsOn();
    std::vector<std::pair<size_t, const SlotPlacement*>> given;
    for (int agent : hosts) {
      for (size_t c : candidates->OnAgent(agent)) {
        if (c > last) break;
        if (candidates->released(c)) continue;
        for (const PreemptionCandidates::Hold& h : candidates->Holds(c)) {
          if (h.agent != agent) continue;
          ledger.Give(*h.placement);
          given.push_back({c, h.placement});
        }
      }
    }
    auto fit = ledger.Find(t.slots, t.single_node, t.blocked_agents);
    if (!fit) InvariantBroken("the fit probe saw a fit for " + t.allocation_id + " that Find does not");
    std::vector<size_t> needed = NeededFor(t, *fit, given, last);
    for (const auto& [c, placement] : given) {
      if (!std::binary_search(needed.begin(), needed.end(), c)) ledger.Take(*placement);
    }
    for (size_t c : needed) {
      for (const PreemptionCandidates::Hold& h : candidates->Holds(c)) {
        if (!std::binary_search(hosts.begin(), hosts.end(), h.agent)) ledger.Give(*h.placement);
      }
    }
    ledger.Take(*fit);
    for (size_t c : needed) {
      candidates->Release(c);
      decision.to_preempt.push_back(candidates->allocation(c).allocation_id);
    }
  }

  // The walked candidates that hold slots of `fit` (ascending); for a zero-slot request, the last
  // container walked whose (first) placement is on the fit's agent: the one that made room.
  std::vector<size_t> NeededFor(const PendingRequest& t, const std::vector<SlotPlacement>& fit,
                                const std::vector<std::pair<size_t, const SlotPlacement*>>& given,
                                size_t last) {
    std::vector<size_t> needed;
    if (t.slots == 0) {
      int agent = ledger.AgentIndex(fit[0].agent_id);
      const std::vector<size_t>& there = candidates->OnAgent(agent);
      for (auto it = std::upper_bound(there.begin(), there.end(), last); it != there.begin();) {
        size_t c = *--it;
        if (!candidates->released(c) && candidates->Holds(c)[0].agent == agent) {
          needed.push_back(c);
          break;
        }
      }
      return needed;
    }
    std::set<std::pair<std::string_view, int>> wanted;
    for (const SlotPlacement& p : fit) {
      for (int slot : p.slot_ids) wanted.insert({p.agent_id, slot});
    }
    for (const auto& [c, placement] : given) {
      for (int slot : placement->slot_ids) {
        if (wanted.count({placement->agent_id, slot})) {
          needed.push_back(c);
          break;
        }
      }
    }
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    return needed;
  }

  void Run(const std::vector<const PendingRequest*>& sorted, bool zero_slot) {
    std::vector<const PendingRequest*> pending;
    for (const PendingRequest* r : sorted) {
      if ((r->slots == 0) == zero_slot) pending.push_back(r);
    }
    if (config.preemption) {
      candidates.emplace(InReleaseOrder(pool, zero_slot, config), ledger);
    }
    bool backfilling = false;
    for (size_t i = 0; i < pending.size();) {
      int level = Prio(pending[i]->priority);
      size_t end = i;
      while (end < pending.size() && Prio(pending[end]->priority) == level) ++end;
      std::vector<const PendingRequest*> failed;
      for (; i < end; ++i) {
        const PendingRequest& r = *pending[i];
        auto fit = ledger.Find(r.slots, r.single_node, r.blocked_agents);
        if (!fit) {
          failed.push_back(&r);
          continue;
        }
        if (backfilling && !(config.preemption && r.preemptible)) continue;
        ledger.Take(*fit);
        decision.to_start.push_back({r.allocation_id, std::move(*fit), backfilling});
      }
      if (!failed.empty()) backfilling = true;
      if (config.preemption) {
        for (const PendingRequest* t : failed) TryPreempt(*t);
      }
      if (candidates && candidates->released_count() > 0) return;
    }
  }
};

}  // namespace

Decision SchedulePriority(const SchedulerConfig& config, const PoolSnapshot& pool) {
  Decision decision;
  PoolLedger ledger(pool, config.fitting_policy, config.allow_heterogeneous_fits);
  std::vector<const PendingRequest*> pending =
      FeasiblePending(pool, config.allow_heterogeneous_fits, &decision.infeasible);
  SortByPriority(pending, config);
  for (bool zero_slot : {false, true}) {
    Pass pass{config, pool, ledger, decision};
    pass.Run(pending, zero_slot);
  }
  return decision;
}

}  // namespace det::scheduler

#include "scheduler/priority.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_set>

#include "scheduler/feasibility.h"
#include "scheduler/fitting.h"
#include "scheduler/job_queue.h"

namespace det::scheduler {
namespace {

struct Pass {
  const SchedulerConfig& config;
  const PoolSnapshot& pool;
  PoolLedger& ledger;
  Decision& decision;
  std::vector<const RunningAllocation*> candidates;  // least important, newest first
  std::unordered_set<std::string> released;
  std::set<std::tuple<int, bool, int>> hopeless;  // preemption cannot help these

  int Prio(const std::optional<int>& p) const { return EffectivePriority(p, config); }

  // Whether running allocation `c` is strictly less important than request `t`.
  bool LessImportant(const RunningAllocation& c, const PendingRequest& t) const {
    int cp = Prio(c.priority), tp = Prio(t.priority);
    if (cp != tp) return cp > tp;
    double tk = QueueKey(t), ck = QueueKey(c);
    return std::tie(tk, t.job_submission, t.job_id) < std::tie(ck, c.job_submission, c.job_id);
  }

  void TryPreempt(const PendingRequest& t) {
    if (auto fit = ledger.Find(t.slots, t.single_node, t.blocked_agents)) {  // fits once planned releases finish
      ledger.Take(*fit);
      return;
    }
    // Requests come in queue order, so within a level the candidates only shrink (and so does the
    // free capacity): a shape preemption could not help stays hopeless for the rest of the level.
    auto key = std::make_tuple(t.slots, t.single_node, Prio(t.priority));
    if (t.blocked_agents.empty() && hopeless.count(key)) return;
    std::vector<const RunningAllocation*> freed;
    for (const RunningAllocation* c : candidates) {
      if (released.count(c->allocation_id) || !LessImportant(*c, t)) continue;
      ledger.Give(c->placements);
      freed.push_back(c);
      if (auto fit = ledger.Find(t.slots, t.single_node, t.blocked_agents)) {
        // Release only what holds the slots of the fit (the others keep running): for a zero-slot
        // request, the last container freed on its agent.
        std::set<std::pair<std::string, int>> wanted;
        for (const SlotPlacement& p : *fit) {
          for (int slot : p.slot_ids) wanted.insert({p.agent_id, slot});
        }
        size_t last_on_fit_agent = freed.size();  // zero-slot: the container that made room
        for (size_t k = 0; k < freed.size(); ++k) {
          const auto& ps = freed[k]->placements;
          if (!ps.empty() && ps[0].agent_id == (*fit)[0].agent_id) last_on_fit_agent = k;
        }
        std::vector<const RunningAllocation*> needed;
        for (size_t k = 0; k < freed.size(); ++k) {
          bool need = t.slots == 0 && k == last_on_fit_agent;
          for (const SlotPlacement& p : freed[k]->placements) {
            for (int slot : p.slot_ids) need = need || wanted.count({p.agent_id, slot}) > 0;
          }
          if (need) {
            needed.push_back(freed[k]);
          } else {
            ledger.Take(freed[k]->placements);
          }
        }
        ledger.Take(*fit);
        for (const RunningAllocation* f : needed) {
          released.insert(f->allocation_id);
          decision.to_preempt.push_back(f->allocation_id);
        }
        return;
      }
    }
    for (const RunningAllocation* f : freed) ledger.Take(f->placements);
    if (t.blocked_agents.empty()) hopeless.insert(key);
  }

  void Run(const std::vector<const PendingRequest*>& sorted, bool zero_slot) {
    std::vector<const PendingRequest*> pending;
    for (const PendingRequest* r : sorted) {
      if ((r->slots == 0) == zero_slot) pending.push_back(r);
    }
    if (config.preemption) {
      for (const RunningAllocation& a : pool.running) {
        if ((a.slots == 0) == zero_slot && a.preemptible) candidates.push_back(&a);
      }
      std::sort(candidates.begin(), candidates.end(),
                [this](const RunningAllocation* a, const RunningAllocation* b) {
                  int pa = Prio(a->priority), pb = Prio(b->priority);
                  double ka = QueueKey(*a), kb = QueueKey(*b);
                  return std::tie(pa, ka, a->job_submission, a->job_id, a->start_order,
                                  a->allocation_id) > std::tie(pb, kb, b->job_submission, b->job_id,
                                                               b->start_order, b->allocation_id);
                });
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
      if (!released.empty()) return;
    }
  }
};

}  // namespace

Decision SchedulePriority(const SchedulerConfig& config, const PoolSnapshot& pool) {
  Decision decision;
  PoolLedger ledger(pool, config.fitting_policy, config.allow_heterogeneous_fits);
  std::vector<const PendingRequest*> pending =
      FeasiblePending(pool, config.allow_heterogeneous_fits, &decision.infeasible);
  std::sort(pending.begin(), pending.end(),
            [&config](const PendingRequest* a, const PendingRequest* b) {
              return PriorityLess(*a, *b, config);
            });
  for (bool zero_slot : {false, true}) {
    Pass pass{config, pool, ledger, decision, {}, {}, {}};
    pass.Run(pending, zero_slot);
  }
  return decision;
}

}  // namespace det::scheduler

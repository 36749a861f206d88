#include "scheduler/fair_share.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include "scheduler/feasibility.h"
#include "scheduler/fitting.h"
#include "scheduler/job_queue.h"

namespace det::scheduler {
namespace {

struct Group {
  std::string job_id;
  int64_t submission = 0;
  double weight = 1;
  std::optional<int> max_slots;
  std::vector<const RunningAllocation*> running;
  std::vector<const PendingRequest*> pending;
  long long active = 0;         // slots held
  long long presubscribed = 0;  // slots held by non-preemptible allocations
  long long demand = 0;
  int min_pending = 0;
  bool disabled = false;
  long long offer = 0;
};

// Integer offers: proportional to demand x weight, capped at demand, at least presubscribed.
// The continuous shares are clamp(lambda * demand * weight, presubscribed, demand) with lambda
// chosen so that they add up to the capacity (found by bisection: O(60 n)).
void WaterFill(std::vector<Group>& groups, long long capacity) {
  size_t n = groups.size();
  auto share_at = [&](size_t g, double lambda) {
    const Group& x = groups[g];
    if (x.disabled || x.demand == 0) return static_cast<double>(x.presubscribed);
    double s = lambda * static_cast<double>(x.demand) * x.weight;
    return std::clamp(s, static_cast<double>(x.presubscribed), static_cast<double>(x.demand));
  };
  auto total_at = [&](double lambda) {
    double t = 0;
    for (size_t g = 0; g < n; ++g) t += share_at(g, lambda);
    return t;
  };
  double lo = 0, hi = 1;
  for (const Group& x : groups) {
    if (x.weight > 0) hi = std::max(hi, 1.0 / x.weight);
  }
  double lambda = hi;  // everyone gets the full demand if it all fits
  if (total_at(hi) > static_cast<double>(capacity)) {
    for (int i = 0; i < 100; ++i) {
      double mid = (lo + hi) / 2;
      (total_at(mid) > static_cast<double>(capacity) ? hi : lo) = mid;
    }
    lambda = lo;
  }
  std::vector<double> share(n);
  for (size_t g = 0; g < n; ++g) share[g] = share_at(g, lambda);
  long long left = capacity;
  for (size_t g = 0; g < n; ++g) {
    groups[g].offer =
        std::min(groups[g].demand, static_cast<long long>(std::floor(share[g] + 1e-9)));
    groups[g].offer = std::max(groups[g].offer, groups[g].presubscribed);
    left -= groups[g].offer;
  }
  std::vector<size_t> order(n);
  for (size_t g = 0; g < n; ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return share[a] - std::floor(share[a] + 1e-9) > share[b] - std::floor(share[b] + 1e-9) + 1e-9;
  });
  while (left > 0) {
    bool progress = false;
    for (size_t g : order) {
      if (left == 0) break;
      if (groups[g].disabled || groups[g].offer >= groups[g].demand) continue;
      ++groups[g].offer;
      --left;
      progress = true;
    }
    if (!progress) break;
  }
}

}  // namespace

Decision ScheduleFairShare(const SchedulerConfig& config, const PoolSnapshot& pool) {
  Decision decision;
  PoolLedger ledger(pool, config.fitting_policy, config.allow_heterogeneous_fits);
  std::vector<const PendingRequest*> pending =
      FeasiblePending(pool, config.allow_heterogeneous_fits, &decision.infeasible);
  SortBySubmission(pending);

  for (const PendingRequest* r : pending) {  // zero-slot: FIFO
    if (r->slots != 0) continue;
    if (auto fit = ledger.Find(0, false, r->blocked_agents)) {
      ledger.Take(*fit);
      decision.to_start.push_back({r->allocation_id, std::move(*fit), false});
    }
  }

  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> index;
  auto group = [&](const std::string& job, int64_t submission, double weight,
                   const std::optional<int>& max_slots) -> Group& {
    auto [it, inserted] = index.emplace(job, groups.size());
    if (inserted) {
      Group g;
      g.job_id = job;
      g.submission = submission;
      g.weight = std::max(0.0, weight);
      g.max_slots = max_slots;
      groups.push_back(std::move(g));
    }
    return groups[it->second];
  };
  for (const PendingRequest* r : pending) {
    if (r->slots == 0) continue;
    Group& g = group(r->job_id, r->job_submission, r->weight, r->max_slots);
    g.pending.push_back(r);
    g.demand += r->slots;
    g.min_pending = g.min_pending == 0 ? r->slots : std::min(g.min_pending, r->slots);
  }
  for (const RunningAllocation& a : pool.running) {
    if (a.slots == 0) continue;
    Group& g = group(a.job_id, a.job_submission, a.weight, a.max_slots);
    g.running.push_back(&a);
    g.active += a.slots;
    if (!a.preemptible) g.presubscribed += a.slots;
  }
  for (Group& g : groups) {
    g.demand += g.active;
    if (g.max_slots) g.demand = std::min<long long>(g.demand, std::max(0, *g.max_slots));
    g.demand = std::max(g.demand, g.presubscribed);
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return std::tie(a.submission, a.job_id) < std::tie(b.submission, b.job_id);
  });

  long long capacity = 0;
  for (const AgentState& a : pool.agents) {
    int total = std::max(0, a.total_slots);
    capacity += a.enabled && !a.draining
                    ? total
                    : std::max(0, total - static_cast<int>(a.free_slot_ids.size()));
  }

  for (;;) {
    WaterFill(groups, capacity);
    // Jobs holding nothing that cannot use their share: the newer half of them (at least one)
    // give their shares up, then the shares are computed again. Never all at once, so that the
    // older ones can grow into their requests (three 8-slot jobs on 8 slots: the oldest runs).
    std::vector<Group*> starved;
    for (Group& g : groups) {
      if (!g.disabled && g.active == 0 && g.offer > 0 && g.offer < g.min_pending)
        starved.push_back(&g);
    }
    if (starved.empty()) break;
    size_t n_disable = std::max<size_t>(1, starved.size() / 2);
    for (size_t k = starved.size() - n_disable; k < starved.size(); ++k)
      starved[k]->disabled = true;
  }

  for (Group& g : groups) {
    if (g.active <= g.offer) continue;
    std::vector<const RunningAllocation*> running = g.running;
    std::sort(running.begin(), running.end(),
              [](const RunningAllocation* a, const RunningAllocation* b) {
                return std::tie(a->start_order, a->allocation_id) >
                       std::tie(b->start_order, b->allocation_id);
              });
    for (const RunningAllocation* a : running) {
      if (g.active <= g.offer) break;
      if (!a->preemptible) continue;
      decision.to_preempt.push_back(a->allocation_id);
      g.active -= a->slots;
    }
  }
  for (Group& g : groups) {
    long long budget = g.offer - g.active;
    for (const PendingRequest* r : g.pending) {
      if (budget <= 0) break;
      if (r->slots > budget) continue;
      if (auto fit = ledger.Find(r->slots, r->single_node, r->blocked_agents)) {
        ledger.Take(*fit);
        decision.to_start.push_back({r->allocation_id, std::move(*fit), false});
        budget -= r->slots;
      }
    }
  }
  return decision;
}

}  // namespace det::scheduler

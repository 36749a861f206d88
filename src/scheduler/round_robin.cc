#include "scheduler/round_robin.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "scheduler/feasibility.h"
#include "scheduler/fitting.h"
#include "scheduler/job_queue.h"

namespace det::scheduler {

Decision ScheduleRoundRobin(const SchedulerConfig& config, const PoolSnapshot& pool) {
  Decision decision;
  PoolLedger ledger(pool, config.fitting_policy, config.allow_heterogeneous_fits);
  std::vector<const PendingRequest*> pending =
      FeasiblePending(pool, config.allow_heterogeneous_fits, &decision.infeasible);
  SortBySubmission(pending);

  for (bool zero_slot : {false, true}) {
    struct Job {
      int64_t submission = 0;
      long long held = 0;
      std::vector<const PendingRequest*> queue;
      size_t next = 0;
    };
    std::unordered_map<std::string, Job> jobs;
    for (const PendingRequest* r : pending) {
      if ((r->slots == 0) != zero_slot) continue;
      Job& j = jobs[r->job_id];
      j.submission = r->job_submission;
      j.queue.push_back(r);
    }
    for (const RunningAllocation& a : pool.running) {
      if ((a.slots == 0) != zero_slot) continue;
      auto it = jobs.find(a.job_id);
      if (it != jobs.end()) ++it->second.held;
    }
    std::set<std::tuple<long long, int64_t, std::string>> turns;
    for (const auto& [id, j] : jobs) turns.insert({j.held, j.submission, id});
    while (!turns.empty()) {
      auto [held, submission, id] = *turns.begin();
      turns.erase(turns.begin());
      Job& j = jobs[id];
      const PendingRequest& r = *j.queue[j.next];
      auto fit = ledger.Find(r.slots, r.single_node, r.blocked_agents);
      if (!fit) continue;
      ledger.Take(*fit);
      decision.to_start.push_back({r.allocation_id, std::move(*fit), false});
      ++j.held;
      if (++j.next < j.queue.size()) turns.insert({j.held, j.submission, id});
    }
  }
  return decision;
}

}  // namespace det::scheduler

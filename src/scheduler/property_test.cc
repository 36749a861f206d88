// Property tests over random pool snapshots (seeded, deterministic): every policy, every fitting
// rule, random agents (some disabled or draining), running work (single-agent, gangs, zero-slot)
// and pending requests of jobs with random priorities, weights and max_slots.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "scheduler/decision_check.h"
#include "scheduler/feasibility.h"
#include "scheduler/fitting.h"
#include "scheduler/job_queue.h"
#include "scheduler/schedule.h"

namespace det::scheduler {
namespace {

struct JobSpec {
  std::string id;
  int64_t submission;
  std::optional<int> priority;
  bool preemptible;
  double weight;
  std::optional<int> max_slots;
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  template <typename T>
  T Pick(const std::vector<T>& v) {
    return v[Uniform(0, static_cast<int>(v.size()) - 1)];
  }

  SchedulerConfig Config() {
    SchedulerConfig c;
    c.type =
        Pick(std::vector<SchedulerType>{SchedulerType::kPriority, SchedulerType::kPriority,
                                        SchedulerType::kFairShare, SchedulerType::kRoundRobin});
    c.fitting_policy = Chance(50) ? FittingPolicy::kBest : FittingPolicy::kWorst;
    c.preemption = Chance(60);
    c.allow_heterogeneous_fits = Chance(25);
    c.default_priority = Uniform(1, 5);
    return c;
  }

  PoolSnapshot Pool() {
    PoolSnapshot p;
    int n_agents = Uniform(1, 10);
    for (int i = 0; i < n_agents; ++i) {
      AgentState a;
      a.id = absl::StrCat("agent", i);
      a.total_slots = Pick(std::vector<int>{0, 1, 2, 4, 4, 8});
      for (int s = 0; s < a.total_slots; ++s) a.free_slot_ids.push_back(s);
      a.enabled = !Chance(5);
      a.draining = Chance(5);
      a.max_aux_containers = Uniform(0, 3);
      p.agents.push_back(a);
    }
    std::vector<JobSpec> jobs;
    int n_jobs = Uniform(1, 8);
    for (int j = 0; j < n_jobs; ++j) {
      JobSpec s{absl::StrCat("job", j), Uniform(0, 20), std::nullopt, Chance(80),
                1.0 * Uniform(1, 3),    std::nullopt};
      if (Chance(80)) s.priority = Uniform(1, 5);
      if (Chance(20)) s.max_slots = Uniform(1, 8);
      jobs.push_back(s);
    }
    int counter = 0;
    // Running work, consistent with the agents' free slots.
    int n_running = Uniform(0, 12);
    for (int k = 0; k < n_running; ++k) {
      const JobSpec& job = Pick(jobs);
      RunningAllocation r;
      r.allocation_id = absl::StrCat(job.id, ".r", ++counter);
      Fill(r, job);
      r.start_order = Uniform(0, 1000);
      AgentState& a = p.agents[Uniform(0, n_agents - 1)];
      if (Chance(15)) {  // zero-slot container
        if (a.running_zero_slot >= a.max_aux_containers) continue;
        ++a.running_zero_slot;
        r.slots = 0;
        r.placements = {{a.id, {}}};
      } else if (Chance(15)) {  // a gang over two idle agents of one size
        std::vector<AgentState*> idle;
        for (AgentState& b : p.agents) {
          if (b.total_slots > 0 && static_cast<int>(b.free_slot_ids.size()) == b.total_slots &&
              b.total_slots == a.total_slots) {
            idle.push_back(&b);
          }
        }
        if (idle.size() < 2) continue;
        for (int g = 0; g < 2; ++g) {
          r.placements.push_back({idle[g]->id, idle[g]->free_slot_ids});
          r.slots += idle[g]->total_slots;
          idle[g]->free_slot_ids.clear();
        }
      } else {
        int want = Uniform(1, 4);
        if (static_cast<int>(a.free_slot_ids.size()) < want) continue;
        std::shuffle(a.free_slot_ids.begin(), a.free_slot_ids.end(), rng_);
        std::vector<int> taken(a.free_slot_ids.end() - want, a.free_slot_ids.end());
        a.free_slot_ids.resize(a.free_slot_ids.size() - want);
        std::sort(a.free_slot_ids.begin(), a.free_slot_ids.end());
        r.slots = want;
        r.placements = {{a.id, taken}};
      }
      p.running.push_back(r);
    }
    int n_pending = Uniform(0, 30);
    for (int k = 0; k < n_pending; ++k) {
      const JobSpec& job = Pick(jobs);
      PendingRequest r;
      r.allocation_id = absl::StrCat(job.id, ".p", ++counter);
      r.job_id = job.id;
      r.job_submission = job.submission;
      r.request_order = Uniform(0, 50);
      r.priority = job.priority;
      r.preemptible = job.preemptible;
      r.weight = job.weight;
      r.max_slots = job.max_slots;
      r.slots = Pick(std::vector<int>{0, 1, 1, 1, 2, 2, 4, 8, 16});
      r.single_node = Chance(20);
      p.pending.push_back(r);
    }
    return p;
  }

 private:
  static void Fill(RunningAllocation& r, const JobSpec& job) {
    r.job_id = job.id;
    r.job_submission = job.submission;
    r.priority = job.priority;
    r.preemptible = job.preemptible;
    r.weight = job.weight;
    r.max_slots = job.max_slots;
  }
  std::mt19937 rng_;
};

constexpr int kCases = 4000;

TEST(SchedulerPropertyTest, NoDoubleBookingGangAllOrNothingDeterministic) {
  Generator gen(20261122);
  int starts = 0, gangs = 0, preempts = 0;
  for (int c = 0; c < kCases; ++c) {
    SchedulerConfig config = gen.Config();
    PoolSnapshot pool = gen.Pool();
    Decision d = Schedule(config, pool);
    ASSERT_EQ(CheckDecision(pool, d), "") << "case " << c;
    Decision again = Schedule(config, pool);
    ASSERT_EQ(again.to_start, d.to_start) << "case " << c;
    ASSERT_EQ(again.to_preempt, d.to_preempt) << "case " << c;
    // Infeasible requests are exactly those CheckFeasible refuses.
    std::set<std::string> infeasible(d.infeasible.begin(), d.infeasible.end());
    for (const PendingRequest& r : pool.pending) {
      ASSERT_EQ(infeasible.count(r.allocation_id) > 0,
                !CheckFeasible(pool, r, config.allow_heterogeneous_fits).ok())
          << "case " << c << " " << r.allocation_id;
    }
    bool preempting_policy = config.type == SchedulerType::kFairShare ||
                             (config.type == SchedulerType::kPriority && config.preemption);
    if (!preempting_policy) {
      ASSERT_TRUE(d.to_preempt.empty()) << "case " << c;
    }
    starts += static_cast<int>(d.to_start.size());
    preempts += static_cast<int>(d.to_preempt.size());
    for (const StartDecision& s : d.to_start) gangs += s.placements.size() > 1;
  }
  // The generator exercises what it claims to.
  EXPECT_GT(starts, kCases);
  EXPECT_GT(gangs, 50);
  EXPECT_GT(preempts, 200);
}

// Progress (no deadlock): on an idle pool of usable agents, some slotted request starts whenever
// one can ever start (under fair_share: within its job's max_slots).
TEST(SchedulerPropertyTest, IdlePoolAlwaysStartsSomething) {
  Generator gen(99);
  int checked = 0;
  for (int c = 0; c < kCases; ++c) {
    SchedulerConfig config = gen.Config();
    PoolSnapshot pool = gen.Pool();
    pool.running.clear();
    for (AgentState& a : pool.agents) {
      a.enabled = true;
      a.draining = false;
      a.running_zero_slot = 0;
      a.free_slot_ids.clear();
      for (int s = 0; s < a.total_slots; ++s) a.free_slot_ids.push_back(s);
    }
    bool startable = false;
    for (const PendingRequest& r : pool.pending) {
      startable = startable ||
                  (r.slots > 0 && CheckFeasible(pool, r, config.allow_heterogeneous_fits).ok() &&
                   (!r.max_slots || r.slots <= *r.max_slots));
    }
    if (!startable) continue;
    ++checked;
    Decision d = Schedule(config, pool);
    ASSERT_EQ(CheckDecision(pool, d), "") << "case " << c;
    bool started = false;
    for (const StartDecision& s : d.to_start)
      started = started || !s.placements[0].slot_ids.empty();
    ASSERT_TRUE(started) << "case " << c << ": nothing started on an idle pool";
  }
  EXPECT_GT(checked, 1000);
}

// With preemption on, a pending request that did not start (and is not held back as a
// non-preemptible request below a blocked level) would not fit even if every preemptible
// allocation of strictly less important priority were gone, given what this pass started for work
// at least as important.
TEST(SchedulerPropertyTest, PriorityPreemptionLeavesNoHigherPriorityJobWaiting) {
  Generator gen(4242);
  int checked = 0, would_fit_after_preemption = 0;
  for (int c = 0; c < kCases; ++c) {
    SchedulerConfig config = gen.Config();
    config.type = SchedulerType::kPriority;
    config.preemption = true;
    PoolSnapshot pool = gen.Pool();
    Decision d = Schedule(config, pool);
    ASSERT_EQ(CheckDecision(pool, d), "") << "case " << c;
    std::set<std::string> started, infeasible(d.infeasible.begin(), d.infeasible.end());
    for (const StartDecision& s : d.to_start) started.insert(s.allocation_id);
    if (!d.to_preempt.empty()) {
      ++would_fit_after_preemption;
      // Every preempted allocation is less important than some request left waiting.
      std::map<std::string, const RunningAllocation*> running;
      for (const RunningAllocation& a : pool.running) running[a.allocation_id] = &a;
      for (const std::string& id : d.to_preempt) {
        const RunningAllocation& a = *running.at(id);
        bool justified = false;
        for (const PendingRequest& r : pool.pending) {
          if ((r.slots == 0) != (a.slots == 0) || started.count(r.allocation_id)) continue;
          int rp = EffectivePriority(r.priority, config),
              ap = EffectivePriority(a.priority, config);
          justified = justified || ap > rp ||
                      (ap == rp && std::make_tuple(QueueKey(r), r.job_submission, r.job_id) <
                                       std::make_tuple(QueueKey(a), a.job_submission, a.job_id));
        }
        ASSERT_TRUE(justified) << "case " << c << ": " << id << " preempted for nothing";
      }
      continue;  // the request it preempts for starts in a later pass
    }
    std::map<std::string, const PendingRequest*> by_id;
    for (const PendingRequest& r : pool.pending) by_id[r.allocation_id] = &r;
    std::optional<int> blocked_level;  // most important priority with a waiting slotted request
    for (const PendingRequest& r : pool.pending) {
      if (r.slots == 0 || started.count(r.allocation_id) || infeasible.count(r.allocation_id))
        continue;
      int p = EffectivePriority(r.priority, config);
      if (!blocked_level || p < *blocked_level) blocked_level = p;
    }
    for (const PendingRequest& r : pool.pending) {
      if (r.slots == 0 || started.count(r.allocation_id) || infeasible.count(r.allocation_id))
        continue;
      int p = EffectivePriority(r.priority, config);
      if (!r.preemptible && p > *blocked_level) continue;  // no backfill for non-preemptible work
      PoolLedger ledger(pool, config.fitting_policy, config.allow_heterogeneous_fits);
      for (const StartDecision& s : d.to_start) {
        const PendingRequest& o = *by_id.at(s.allocation_id);
        if (o.slots > 0 && EffectivePriority(o.priority, config) <= p) ledger.Take(s.placements);
      }
      for (const RunningAllocation& a : pool.running) {
        if (a.slots > 0 && a.preemptible && EffectivePriority(a.priority, config) > p) {
          ledger.Give(a.placements);
        }
      }
      ++checked;
      ASSERT_FALSE(ledger.Find(r.slots, r.single_node).has_value())
          << "case " << c << ": " << r.allocation_id << " (priority " << p << ", " << r.slots
          << " slots) waits although preempting less important work would make it fit";
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(would_fit_after_preemption, 100);
}

// Fair share never hands out more than the pool holds and keeps each job within max_slots unless
// non-preemptible work already exceeds it.
TEST(SchedulerPropertyTest, FairShareRespectsCapacityAndMaxSlots) {
  Generator gen(777);
  for (int c = 0; c < kCases; ++c) {
    SchedulerConfig config = gen.Config();
    config.type = SchedulerType::kFairShare;
    PoolSnapshot pool = gen.Pool();
    Decision d = Schedule(config, pool);
    ASSERT_EQ(CheckDecision(pool, d), "") << "case " << c;
    std::set<std::string> preempted(d.to_preempt.begin(), d.to_preempt.end());
    std::map<std::string, long long> held, pinned;
    std::map<std::string, std::optional<int>> max_slots;
    for (const RunningAllocation& a : pool.running) {
      if (a.slots == 0) continue;
      max_slots[a.job_id] = a.max_slots;
      if (!a.preemptible) pinned[a.job_id] += a.slots;
      if (!preempted.count(a.allocation_id)) held[a.job_id] += a.slots;
    }
    std::map<std::string, const PendingRequest*> by_id;
    for (const PendingRequest& r : pool.pending) by_id[r.allocation_id] = &r;
    for (const StartDecision& s : d.to_start) {
      const PendingRequest& r = *by_id.at(s.allocation_id);
      max_slots[r.job_id] = r.max_slots;
      held[r.job_id] += r.slots;
    }
    for (const auto& [job, slots] : held) {
      if (max_slots[job]) {
        ASSERT_LE(slots, std::max<long long>(*max_slots[job], pinned[job]))
            << "case " << c << " job " << job;
      }
    }
  }
}

}  // namespace
}  // namespace det::scheduler

// Scheduler benchmark (bench/RESULTS.md): one scheduling pass over a pool of 1,000 agents x 8 slots
// with N pending requests (1k, 10k, 100k), for each policy. Requests: 60% 1 slot, 20% 2, 10% 4,
// 7% 8, 3% 16 (gangs over two idle agents); 10 requests per job; priorities 1..10.
// "decisions/s" = pending requests decided (started, waiting or infeasible) per second of pass.
// A summary follows against the goals of issue 41 (bench/thresholds.yaml): at 10k pending at least
// 1,000,000 decisions/s for every policy and a preemption pass under 10 ms; a 100k pass at most
// 12.5x the 10k pass (n log n growth). It reports; it does not fail (the VM is shared and noisy).
//
//   scheduler_bench [repetitions]     (default 5; the median pass time is reported)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scheduler/schedule.h"

namespace det::scheduler {
namespace {

PoolSnapshot MakePool(int agents, int slots, int requests, int busy_percent, std::mt19937& rng) {
  PoolSnapshot pool;
  for (int i = 0; i < agents; ++i) {
    AgentState a;
    a.id = "agent-" + std::to_string(100000 + i);
    a.total_slots = slots;
    for (int s = 0; s < slots; ++s) a.free_slot_ids.push_back(s);
    pool.agents.push_back(a);
  }
  // Optionally fill part of the pool with low-priority, preemptible single-slot trials.
  int64_t order = 0;
  for (AgentState& a : pool.agents) {
    if (static_cast<int>(rng() % 100) >= busy_percent) continue;
    for (int s : a.free_slot_ids) {
      RunningAllocation r;
      r.allocation_id = "busy-" + a.id + "." + std::to_string(s);
      r.job_id = "busy-job-" + std::to_string(order % 50);
      r.job_submission = order % 50;
      r.slots = 1;
      r.placements = {{a.id, {s}}};
      r.priority = 99;
      r.start_order = ++order;
      pool.running.push_back(r);
    }
    a.free_slot_ids.clear();
  }
  std::discrete_distribution<int> size_dist({60, 20, 10, 7, 3});
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < requests; ++i) {
    PendingRequest r;
    int job = i / 10;
    r.job_id = "job-" + std::to_string(job);
    r.allocation_id = r.job_id + "." + std::to_string(i % 10);
    r.job_submission = 1000 + job;
    r.request_order = i;
    r.slots = sizes[size_dist(rng)];
    r.priority = 1 + job % 10;
    r.weight = 1 + job % 3;
    pool.pending.push_back(r);
  }
  return pool;
}

struct Result {
  double median_ms = 0;
  size_t started = 0, preempted = 0;
};

Result Time(const SchedulerConfig& config, const PoolSnapshot& pool, int reps) {
  std::vector<double> ms;
  Result r;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Decision d = Schedule(config, pool);
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    r.started = d.to_start.size();
    r.preempted = d.to_preempt.size();
  }
  std::sort(ms.begin(), ms.end());
  r.median_ms = ms[ms.size() / 2];
  return r;
}

// Issue 41's goals.
constexpr double kMinDecisionsPerSecond = 1e6;  // at 10k pending, every policy
constexpr double kMaxPreemptionPassMs = 10;     // at 10k pending
constexpr double kMaxGrowth = 12.5;  // 100k pass / 10k pass: (1e5 log 1e5) / (1e4 log 1e4)

const char* Verdict(bool ok) { return ok ? "ok" : "MISSED"; }

}  // namespace
}  // namespace det::scheduler

int main(int argc, char** argv) {
  using namespace det::scheduler;
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  struct Case {
    const char* name;
    SchedulerConfig config;
    int busy_percent;
  };
  SchedulerConfig priority, preempt, fair, rr, worst;
  preempt.preemption = true;
  fair.type = SchedulerType::kFairShare;
  rr.type = SchedulerType::kRoundRobin;
  worst.fitting_policy = FittingPolicy::kWorst;
  std::vector<Case> cases = {{"priority best", priority, 0},
                             {"priority worst", worst, 0},
                             {"priority+preemption, 50% busy", preempt, 50},
                             {"fair_share", fair, 0},
                             {"fair_share, 50% busy", fair, 50},
                             {"round_robin", rr, 0}};
  std::printf("%-32s %8s %12s %10s %10s %14s\n", "policy", "pending", "pass (ms)", "started",
              "preempted", "decisions/s");
  const int sizes[] = {1000, 10000, 100000};
  std::vector<std::vector<Result>> results(cases.size());
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    for (int n : sizes) {
      std::mt19937 rng(12345);
      PoolSnapshot pool = MakePool(1000, 8, n, c.busy_percent, rng);
      Result r = Time(c.config, pool, reps);
      std::printf("%-32s %8d %12.2f %10zu %10zu %14.0f\n", c.name, n, r.median_ms, r.started,
                  r.preempted, n / (r.median_ms / 1000.0));
      results[k].push_back(r);
    }
  }

  std::printf(
      "\ngoals (issue 41) at 10k pending: >= %.0f decisions/s, preemption pass < %.0f ms; "
      "100k pass <= %.1fx the 10k pass\n",
      kMinDecisionsPerSecond, kMaxPreemptionPassMs, kMaxGrowth);
  std::printf("%-32s %14s %6s %14s %6s\n", "policy", "decisions/s", "", "100k/10k", "");
  for (size_t k = 0; k < cases.size(); ++k) {
    const Result &at10k = results[k][1], &at100k = results[k][2];
    double per_second = sizes[1] / (at10k.median_ms / 1000.0);
    double growth = at100k.median_ms / at10k.median_ms;
    std::printf("%-32s %14.0f %6s %13.1fx %6s\n", cases[k].name, per_second,
                Verdict(per_second >= kMinDecisionsPerSecond), growth,
                Verdict(growth <= kMaxGrowth));
    if (cases[k].config.preemption) {
      std::printf("%-32s %11.2f ms %6s\n", "  preemption pass", at10k.median_ms,
                  Verdict(at10k.median_ms < kMaxPreemptionPassMs));
    }
  }
  return 0;
}

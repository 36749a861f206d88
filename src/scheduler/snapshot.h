#pragma once
// The input and output of a scheduling pass (DESIGN.md §4, CONVENTIONS.md "Pure policies over
// snapshots"): one resource pool's agents, running allocations and pending requests in, the
// allocations to start (with their agents and slots) and the allocations to preempt out.
//
// Job attributes (priority, weight, max_slots, submission order, queue position) are carried on
// every running allocation and pending request of the job; the policies read them from the first
// record of the job they meet (pending requests first), so callers must keep them consistent.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::scheduler {

enum class SchedulerType { kPriority, kFairShare, kRoundRobin };
enum class FittingPolicy { kBest, kWorst };

struct SchedulerConfig {
  SchedulerType type = SchedulerType::kPriority;
  FittingPolicy fitting_policy = FittingPolicy::kBest;
  // Multi-agent (gang) fits may combine idle agents of different sizes (and use part of the last).
  bool allow_heterogeneous_fits = false;
  bool preemption = false;    // priority only (fair_share always preempts; round_robin never)
  int default_priority = 42;  // for records without a priority; smaller = more important
};

struct AgentState {
  std::string id;
  int total_slots = 0;             // devices
  std::vector<int> free_slot_ids;  // device ids not used by any running allocation
  bool enabled = true;             // disabled: no new work at all
  bool draining = false;           // draining: no new work; running work finishes
  int max_aux_containers = 100;    // zero-slot capacity (max_aux_containers_per_agent)
  int running_zero_slot = 0;       // zero-slot containers running on it now
};

// Where (part of) an allocation runs. A zero-slot allocation has one placement with no slot ids.
struct SlotPlacement {
  std::string agent_id;
  std::vector<int> slot_ids;

  bool operator==(const SlotPlacement&) const = default;
};

struct RunningAllocation {
  std::string allocation_id;
  std::string job_id;
  int64_t job_submission = 0;            // order key of the job's submission (time or counter)
  std::optional<double> queue_position;  // job queue position override (see job_queue.h)
  int slots = 0;
  std::vector<SlotPlacement> placements;
  bool preemptible = true;  // only trials are preemptible
  std::optional<int> priority;
  double weight = 1;
  std::optional<int> max_slots;
  int64_t start_order = 0;  // larger = started later ("newest")
};

struct PendingRequest {
  std::string allocation_id;
  std::string job_id;
  int64_t job_submission = 0;
  int64_t request_order = 0;  // the request's own order key (RequestTime), after job_submission
  std::optional<double> queue_position;
  int slots = 1;
  bool single_node = false;  // resources.is_single_node
  bool preemptible = true;
  std::optional<int> priority;
  double weight = 1;
  std::optional<int> max_slots;
  std::vector<std::string> blocked_agents;  // never placed there (log policy exclude_node)
};

struct PoolSnapshot {
  std::string pool_name = "default";
  std::vector<AgentState> agents;
  std::vector<RunningAllocation> running;
  std::vector<PendingRequest> pending;
};

struct StartDecision {
  std::string allocation_id;
  std::vector<SlotPlacement> placements;  // all of the request's slots (gang: every agent at once)
  bool backfilled = false;                // started below a blocked priority level

  bool operator==(const StartDecision&) const = default;
};

struct Decision {
  std::vector<StartDecision> to_start;
  std::vector<std::string> to_preempt;  // running allocation ids to release (gracefully)
  std::vector<std::string> infeasible;  // pending ids that can never fit in this pool (skipped)
};

}  // namespace det::scheduler

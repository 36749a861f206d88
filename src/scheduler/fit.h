#pragma once
// Placement of pending allocation requests on agents' free slots: a pure function of a snapshot
// (DESIGN.md §4). Requests are considered in order; each either gets slots, waits, or can never
// fit. Legacy entry point kept for the master until it switches to Schedule() (schedule.h), which
// adds the policies (priority, fair_share, round_robin), gangs, zero-slot capacity and preemption.
#include <map>
#include <string>
#include <vector>

namespace det::scheduler {

struct AgentSnapshot {
  std::string id;
  std::string resource_pool;
  std::vector<int> free_slots;  // device ids not in use
  int total_slots = 0;
};

struct Request {
  std::string allocation_id;
  std::string resource_pool;
  int slots = 1;
};

struct Placement {
  std::string allocation_id;
  std::string agent_id;
  std::vector<int> slot_ids;
};

struct FitResult {
  std::vector<Placement> placed;
  std::vector<std::string> waiting;     // fit the pool's capacity, but not its free slots now
  std::vector<std::string> infeasible;  // more slots than any agent of the pool has
};

// First fit on a single agent, fewest free slots first ("best fit"), ties by agent id.
FitResult FitRequests(std::vector<AgentSnapshot> agents, const std::vector<Request>& requests);

}  // namespace det::scheduler

#pragma once
// Whether a request can ever fit in its pool (reference §6.6, stricter: the product refuses what
// could never start instead of queueing it forever). Capacity counts every agent in the snapshot,
// enabled or not (a disabled agent may be enabled again), as if all of them were idle:
//  - slots == 0 always fits (zero-slot containers use the aux capacity);
//  - slots > 0 on a pool whose agents have no slots never fits;
//  - single_node: at most the largest agent's slots;
//  - otherwise one agent, or a gang of idle agents by the fitting rules (fitting.h): whole agents
//    of one size n with slots % n == 0, or (allow_heterogeneous_fits) at most the pool's total.
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/snapshot.h"

namespace det::scheduler {

struct PoolCapacity {
  int largest_agent = 0;
  long long total_slots = 0;
  std::map<int, int> agents_by_size;  // slots -> number of agents with that many slots

  static PoolCapacity Of(const PoolSnapshot& pool);
  bool CanEverFit(int slots, bool single_node, bool allow_heterogeneous_fits) const;
};

// OK, or InvalidArgument naming the config field (`slots_field`, e.g. "resources.slots" for
// commands and notebooks), the request, the pool and what it can hold.
absl::Status CheckFeasible(const PoolSnapshot& pool, const PendingRequest& request,
                           bool allow_heterogeneous_fits = false,
                           const std::string& slots_field = "resources.slots_per_trial");

// The pending requests that can ever fit (in snapshot order); the ids of the others are appended
// to `infeasible`. The policies skip what can never start so it blocks nothing.
std::vector<const PendingRequest*> FeasiblePending(const PoolSnapshot& pool,
                                                   bool allow_heterogeneous_fits,
                                                   std::vector<std::string>* infeasible);

}  // namespace det::scheduler

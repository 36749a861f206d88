#include "scheduler/feasibility.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace det::scheduler {

PoolCapacity PoolCapacity::Of(const PoolSnapshot& pool) {
  PoolCapacity c;
  for (const AgentState& a : pool.agents) {
    if (a.total_slots <= 0) continue;
    c.largest_agent = std::max(c.largest_agent, a.total_slots);
    c.total_slots += a.total_slots;
    ++c.agents_by_size[a.total_slots];
  }
  return c;
}

bool PoolCapacity::CanEverFit(int slots, bool single_node, bool allow_heterogeneous_fits) const {
  if (slots <= 0) return slots == 0;
  if (slots <= largest_agent) return true;
  if (single_node) return false;
  if (allow_heterogeneous_fits) return slots <= total_slots;
  for (const auto& [n, count] : agents_by_size) {
    if (slots % n == 0 && static_cast<long long>(count) * n >= slots) return true;
  }
  return false;
}

std::vector<const PendingRequest*> FeasiblePending(const PoolSnapshot& pool,
                                                   bool allow_heterogeneous_fits,
                                                   std::vector<std::string>* infeasible) {
  PoolCapacity c = PoolCapacity::Of(pool);
  std::vector<const PendingRequest*> out;
  out.reserve(pool.pending.size());
  for (const PendingRequest& r : pool.pending) {
    if (c.CanEverFit(r.slots, r.single_node, allow_heterogeneous_fits)) {
      out.push_back(&r);
    } else {
      infeasible->push_back(r.allocation_id);
    }
  }
  return out;
}

absl::Status CheckFeasible(const PoolSnapshot& pool, const PendingRequest& request,
                           bool allow_heterogeneous_fits, const std::string& slots_field) {
  PoolCapacity c = PoolCapacity::Of(pool);
  if (c.CanEverFit(request.slots, request.single_node, allow_heterogeneous_fits)) {
    return absl::OkStatus();
  }
  std::string head = absl::StrCat(slots_field, ": ", request.slots, " slots requested but pool \"",
                                  pool.pool_name, "\"");
  if (request.slots < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(slots_field, ": must be >= 0, got ", request.slots));
  }
  if (c.total_slots == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        head, " has no slots (", pool.agents.empty() ? "no agents" : "its agents have no devices",
        "); request 0 slots or use another resource pool"));
  }
  if (request.single_node) {
    return absl::InvalidArgumentError(
        absl::StrCat(head, " can hold at most ", c.largest_agent,
                     " on one agent and resources.is_single_node is set"));
  }
  if (request.slots > c.total_slots) {
    return absl::InvalidArgumentError(absl::StrCat(head, " can hold at most ", c.total_slots,
                                                   " (largest agent: ", c.largest_agent,
                                                   " slots)"));
  }
  std::string sizes;
  for (const auto& [n, count] : c.agents_by_size) {
    absl::StrAppend(&sizes, sizes.empty() ? "" : ", ", count, " x ", n);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      head, " cannot place them: a request larger than one agent (largest: ", c.largest_agent,
      " slots) must use whole idle agents of one size, i.e. a multiple of an agent's slots with "
      "enough such agents (agents: ",
      sizes, " slots)"));
}

}  // namespace det::scheduler

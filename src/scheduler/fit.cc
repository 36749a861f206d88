#include "scheduler/fit.h"

#include <algorithm>

namespace det::scheduler {

FitResult FitRequests(std::vector<AgentSnapshot> agents, const std::vector<Request>& requests) {
  FitResult out;
  for (const Request& req : requests) {
    AgentSnapshot* best = nullptr;
    bool could_ever_fit = false;
    for (AgentSnapshot& agent : agents) {
      if (agent.resource_pool != req.resource_pool) continue;
      if (agent.total_slots >= req.slots) could_ever_fit = true;
      if (static_cast<int>(agent.free_slots.size()) < req.slots) continue;
      if (best == nullptr || agent.free_slots.size() < best->free_slots.size() ||
          (agent.free_slots.size() == best->free_slots.size() && agent.id < best->id)) {
        best = &agent;
      }
    }
    if (best == nullptr) {
      (could_ever_fit ? out.waiting : out.infeasible).push_back(req.allocation_id);
      continue;
    }
    std::sort(best->free_slots.begin(), best->free_slots.end());
    Placement p{req.allocation_id, best->id, {}};
    p.slot_ids.assign(best->free_slots.begin(), best->free_slots.begin() + req.slots);
    best->free_slots.erase(best->free_slots.begin(), best->free_slots.begin() + req.slots);
    out.placed.push_back(std::move(p));
  }
  return out;
}

}  // namespace det::scheduler

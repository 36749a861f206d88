#include "scheduler/preemption_candidates.h"

#include <utility>

namespace det::scheduler {

PreemptionCandidates::PreemptionCandidates(std::vector<const RunningAllocation*> in_release_order,
                                           const PoolLedger& ledger)
    : order_(std::move(in_release_order)),
      on_agent_(ledger.agent_count()),
      released_(order_.size()),
      next_(order_.size() + 1) {
  hold_begin_.reserve(order_.size() + 1);
  for (size_t i = 0; i < order_.size(); ++i) {
    hold_begin_.push_back(holds_.size());
    for (const SlotPlacement& p : order_[i]->placements) {
      int agent = ledger.AgentIndex(p.agent_id);
      holds_.push_back({agent, static_cast<int>(p.slot_ids.size()), &p});
      // A candidate with two placements on one agent is listed there once.
      if (agent >= 0 && (on_agent_[agent].empty() || on_agent_[agent].back() != i)) {
        on_agent_[agent].push_back(i);
      }
    }
    next_[i] = i;
  }
  hold_begin_.push_back(holds_.size());
  next_[order_.size()] = order_.size();
}

std::span<const PreemptionCandidates::Hold> PreemptionCandidates::Holds(size_t i) const {
  return std::span<const Hold>(holds_.data() + hold_begin_[i], hold_begin_[i + 1] - hold_begin_[i]);
}

size_t PreemptionCandidates::NextUnreleased(size_t i) {
  if (i >= order_.size()) return order_.size();
  while (next_[i] != i) {
    next_[i] = next_[next_[i]];  // path halving: later calls take shorter hops
    i = next_[i];
  }
  return i;
}

void PreemptionCandidates::Release(size_t i) {
  if (released_[i]) return;
  released_[i] = true;
  next_[i] = i + 1;
  ++released_count_;
}

}  // namespace det::scheduler

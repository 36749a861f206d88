#pragma once
// The running allocations a priority pass may preempt, in the order it releases them (priority.h:
// least important first, newest first within a job), indexed for the preemption search:
//
//  - each candidate's placements resolved to ledger agent indexes once (no id lookups per step);
//  - per agent, the candidates with a placement there, in release order, so that a fit found on
//    a few agents looks only at what runs there (not at every candidate walked to find it);
//  - released candidates skipped in amortized O(1) (a "next unreleased" forest with path
//    halving): each blocked request walks the list from the start, and the released ones at its
//    head would otherwise be stepped over again and again.
//
// Holds pointers into the snapshot's running allocations: the snapshot must outlive it.
#include <cstddef>
#include <span>
#include <vector>

#include "scheduler/fitting.h"
#include "scheduler/snapshot.h"

namespace det::scheduler {

class PreemptionCandidates {
 public:
  // One placement of a candidate: its ledger agent index (-1: an agent no longer in the pool) and
  // the number of slot ids it holds there (0: a zero-slot container).
  struct Hold {
    int agent = -1;
    int slots = 0;
    const SlotPlacement* placement = nullptr;
  };

  // `in_release_order`: the candidates, first to be released first.
  PreemptionCandidates(std::vector<const RunningAllocation*> in_release_order,
                       const PoolLedger& ledger);

  size_t size() const { return order_.size(); }
  const RunningAllocation& allocation(size_t i) const { return *order_[i]; }
  const std::vector<const RunningAllocation*>& in_release_order() const { return order_; }
  std::span<const Hold> Holds(size_t i) const;
  // The candidates with at least one placement on ledger agent `agent`, ascending.
  const std::vector<size_t>& OnAgent(int agent) const { return on_agent_[agent]; }

  // The first candidate at or after `i` that is not released, or size().
  size_t NextUnreleased(size_t i);
  bool released(size_t i) const { return released_[i]; }
  // REQUIRES: i < size(). Releasing a candidate twice is a no-op.
  void Release(size_t i);
  size_t released_count() const { return released_count_; }

 private:
  std::vector<const RunningAllocation*> order_;
  std::vector<Hold> holds_;         // every candidate's, in candidate order
  std::vector<size_t> hold_begin_;  // candidate i's holds: [hold_begin_[i], hold_begin_[i + 1])
  std::vector<std::vector<size_t>> on_agent_;
  std::vector<char> released_;
  std::vector<size_t> next_;  // next_[i] == i: unreleased (or the end); else a later candidate
  size_t released_count_ = 0;
};

}  // namespace det::scheduler

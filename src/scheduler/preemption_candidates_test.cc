#include "scheduler/preemption_candidates.h"

#include <gtest/gtest.h>

#include <random>

namespace det::scheduler {
namespace {

PoolSnapshot TwoAgents() {
  PoolSnapshot pool;
  for (const char* id : {"a", "b"}) {
    AgentState a;
    a.id = id;
    a.total_slots = 4;
    pool.agents.push_back(a);
  }
  auto run = [&](const std::string& id, std::vector<SlotPlacement> placements) {
    RunningAllocation r;
    r.allocation_id = id;
    r.placements = std::move(placements);
    pool.running.push_back(r);
  };
  run("on-b", {{"b", {0, 1}}});
  run("gang", {{"a", {0, 1}}, {"b", {2, 3}}});
  run("gone", {{"departed", {0}}});
  run("aux-on-a", {{"a", {}}});
  return pool;
}

std::vector<const RunningAllocation*> InSnapshotOrder(const PoolSnapshot& pool) {
  std::vector<const RunningAllocation*> out;
  for (const RunningAllocation& r : pool.running) out.push_back(&r);
  return out;
}

TEST(PreemptionCandidatesTest, ResolvesPlacementsAndIndexesThemByAgent) {
  PoolSnapshot pool = TwoAgents();
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  PreemptionCandidates candidates(InSnapshotOrder(pool), ledger);
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_EQ(candidates.allocation(1).allocation_id, "gang");
  auto gang = candidates.Holds(1);
  ASSERT_EQ(gang.size(), 2u);
  EXPECT_EQ(gang[0].agent, ledger.AgentIndex("a"));
  EXPECT_EQ(gang[0].slots, 2);
  EXPECT_EQ(gang[1].agent, ledger.AgentIndex("b"));
  EXPECT_EQ(gang[1].placement, &pool.running[1].placements[1]);
  EXPECT_EQ(candidates.Holds(2)[0].agent, -1);  // on a departed agent
  EXPECT_EQ(candidates.Holds(3)[0].slots, 0);   // a zero-slot container
  EXPECT_EQ(candidates.OnAgent(ledger.AgentIndex("a")), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(candidates.OnAgent(ledger.AgentIndex("b")), (std::vector<size_t>{0, 1}));
}

TEST(PreemptionCandidatesTest, ListsACandidateOncePerAgent) {
  PoolSnapshot pool = TwoAgents();
  pool.running[0].placements.push_back({"b", {3}});
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  PreemptionCandidates candidates(InSnapshotOrder(pool), ledger);
  EXPECT_EQ(candidates.OnAgent(ledger.AgentIndex("b")), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(candidates.Holds(0).size(), 2u);
}

TEST(PreemptionCandidatesTest, SkipsReleasedCandidates) {
  PoolSnapshot pool = TwoAgents();
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  PreemptionCandidates candidates(InSnapshotOrder(pool), ledger);
  EXPECT_EQ(candidates.NextUnreleased(0), 0u);
  candidates.Release(0);
  candidates.Release(1);
  candidates.Release(1);  // twice: no-op
  EXPECT_EQ(candidates.released_count(), 2u);
  EXPECT_TRUE(candidates.released(1));
  EXPECT_EQ(candidates.NextUnreleased(0), 2u);
  candidates.Release(3);
  EXPECT_EQ(candidates.NextUnreleased(3), 4u);  // the end
  EXPECT_EQ(candidates.NextUnreleased(2), 2u);
  EXPECT_EQ(candidates.NextUnreleased(7), 4u);
}

// Against a plain scan, over random releases and queries.
TEST(PreemptionCandidatesTest, NextUnreleasedMatchesAScan) {
  PoolSnapshot pool;
  AgentState a;
  a.id = "a";
  a.total_slots = 1;
  pool.agents.push_back(a);
  pool.running.resize(300);
  for (RunningAllocation& r : pool.running) r.placements = {{"a", {0}}};
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  PreemptionCandidates candidates(InSnapshotOrder(pool), ledger);
  std::vector<bool> released(pool.running.size());
  std::mt19937 rng(7);
  for (int step = 0; step < 5000; ++step) {
    size_t i = rng() % (pool.running.size() + 2);
    if (rng() % 3 == 0 && i < released.size()) {
      candidates.Release(i);
      released[i] = true;
      continue;
    }
    size_t expected = i;
    while (expected < released.size() && released[expected]) ++expected;
    ASSERT_EQ(candidates.NextUnreleased(i), std::min(expected, released.size())) << "step " << step;
  }
}

}  // namespace
}  // namespace det::scheduler

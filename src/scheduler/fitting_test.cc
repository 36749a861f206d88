// PoolLedger's single-placement Give/Take and FitProbe, the ledger's what-if view for the
// preemption search. The probe must agree with giving back and calling Find at every step, and
// Find must answer the same when only the agents the probe names have been given back.
#include "scheduler/fitting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"

namespace det::scheduler {
namespace {

AgentState Agent(const std::string& id, int slots, std::vector<int> free, int aux = 0,
                 int aux_used = 0) {
  AgentState a;
  a.id = id;
  a.total_slots = slots;
  a.free_slot_ids = std::move(free);
  a.max_aux_containers = aux;
  a.running_zero_slot = aux_used;
  return a;
}

TEST(PoolLedgerTest, SinglePlacementGiveAndTake) {
  PoolSnapshot pool;
  pool.agents = {Agent("a", 4, {0, 1}), Agent("b", 4, {})};
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  ledger.Give(SlotPlacement{"b", {2, 3}});
  EXPECT_EQ(ledger.FreeSlots("b"), 2);
  ledger.Take(SlotPlacement{"a", {1}});
  EXPECT_EQ(ledger.FreeSlots("a"), 1);
  ledger.Give(SlotPlacement{"gone", {0}});  // a departed agent: ignored
  EXPECT_EQ(ledger.AgentIndex("gone"), -1);
  EXPECT_EQ(ledger.AgentIndex("b"), 1);
  EXPECT_EQ(ledger.agent_count(), 2);
}

TEST(FitProbeTest, SingleAgentFitOnlyWhereEnoughSlotsComeBack) {
  PoolSnapshot pool;
  pool.agents = {Agent("a", 4, {0}), Agent("b", 4, {0, 1})};
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  ASSERT_FALSE(ledger.Find(3, true).has_value());
  FitProbe probe(ledger);
  probe.Start(3, true, {});
  probe.Add(0, 1);  // a: 2 free
  EXPECT_FALSE(probe.Fits());
  probe.Add(1, 1);  // b: 3 free
  EXPECT_TRUE(probe.Fits());
  EXPECT_EQ(probe.AgentsFindDependsOn(), std::vector<int>{1});
}

TEST(FitProbeTest, BlockedAgentsNeverHostTheFit) {
  PoolSnapshot pool;
  pool.agents = {Agent("a", 2, {}), Agent("b", 2, {})};
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  FitProbe probe(ledger);
  probe.Start(2, false, {"a"});
  probe.Add(0, 2);
  EXPECT_FALSE(probe.Fits());
  probe.Add(1, 2);
  EXPECT_TRUE(probe.Fits());
  EXPECT_EQ(probe.AgentsFindDependsOn(), std::vector<int>{1});
}

TEST(FitProbeTest, GangNeedsEnoughIdleAgentsOfOneSize) {
  PoolSnapshot pool;
  pool.agents = {Agent("a", 4, {0, 1, 2, 3}), Agent("b", 4, {0}), Agent("c", 4, {})};
  PoolLedger ledger(pool, FittingPolicy::kBest, false);
  ASSERT_FALSE(ledger.Find(8, false).has_value());
  FitProbe probe(ledger);
  probe.Start(8, false, {});
  probe.Add(2, 3);
  EXPECT_FALSE(probe.Fits());
  probe.Add(1, 3);  // b idle: a and b make a gang of 8
  EXPECT_TRUE(probe.Fits());
  EXPECT_EQ(probe.AgentsFindDependsOn(), std::vector<int>{1});
  // Reusable: a single-node request of 8 never fits on 4-slot agents.
  probe.Start(8, true, {});
  probe.Add(1, 3);
  probe.Add(2, 4);
  EXPECT_FALSE(probe.Fits());
}

TEST(FitProbeTest, ZeroSlotNeedsAuxRoom) {
  PoolSnapshot pool;
  pool.agents = {Agent("a", 1, {0}, /*aux=*/1, /*aux_used=*/1)};
  PoolLedger ledger(pool, FittingPolicy::kWorst, false);
  ASSERT_FALSE(ledger.Find(0, false).has_value());
  FitProbe probe(ledger);
  probe.Start(0, false, {});
  probe.Add(-1, 0);  // a container on a departed agent frees nothing here
  EXPECT_FALSE(probe.Fits());
  probe.Add(0, 0);
  EXPECT_TRUE(probe.Fits());
  EXPECT_EQ(probe.AgentsFindDependsOn(), std::vector<int>{0});
}

// Random ledgers and give-backs: the probe agrees with Give + Find after every step, and Find with
// only the agents it names given back returns the very same placements.
TEST(FitProbeTest, AgreesWithGiveAndFindOnRandomLedgers) {
  std::mt19937 rng(20261128);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0, fits = 0, gangs = 0, zero_slot = 0;
  for (int c = 0; c < 3000; ++c) {
    PoolSnapshot pool;
    std::vector<std::pair<int, int>> held;  // (agent, slot) not free
    std::vector<int> aux_held;              // one entry per running zero-slot container
    int n_agents = uniform(1, 8);
    std::vector<int> sizes = uniform(0, 1) ? std::vector<int>{4} : std::vector<int>{0, 1, 2, 4, 8};
    for (int i = 0; i < n_agents; ++i) {
      // One draw a statement: the order of a call's arguments is the compiler's, and the cases must be
      // the same under gcc and clang.
      const int name = uniform(0, 9);
      const int size = sizes[uniform(0, static_cast<int>(sizes.size()) - 1)];
      AgentState a = Agent(absl::StrCat("agent", name, "-", i), size, {});
      for (int s = 0; s < a.total_slots; ++s) {
        if (uniform(0, 2) == 0) {
          a.free_slot_ids.push_back(s);
        } else {
          held.push_back({i, s});
        }
      }
      a.enabled = uniform(0, 19) != 0;
      a.draining = uniform(0, 19) == 0;
      a.max_aux_containers = uniform(0, 2);
      a.running_zero_slot = uniform(0, a.max_aux_containers);
      for (int k = 0; k < a.running_zero_slot; ++k) aux_held.push_back(i);
      pool.agents.push_back(a);
    }
    FittingPolicy policy = uniform(0, 1) ? FittingPolicy::kBest : FittingPolicy::kWorst;
    bool heterogeneous = uniform(0, 3) == 0;
    int slots = std::vector<int>{0, 1, 2, 3, 4, 8, 12, 16}[uniform(0, 7)];
    bool single_node = uniform(0, 4) == 0;
    std::vector<std::string> blocked;
    if (uniform(0, 4) == 0) blocked.push_back(pool.agents[uniform(0, n_agents - 1)].id);
    const PoolLedger start(pool, policy, heterogeneous);
    if (start.Find(slots, single_node, blocked)) continue;  // the probe's precondition

    // Give back what is held in random order, one or two placements at a time.
    std::vector<SlotPlacement> gives;
    for (auto [i, s] : held) gives.push_back({pool.agents[i].id, {s}});
    for (int i : aux_held) gives.push_back({pool.agents[i].id, {}});
    std::shuffle(gives.begin(), gives.end(), rng);
    FitProbe probe(start);
    probe.Start(slots, single_node, blocked);
    PoolLedger full = start;
    std::vector<SlotPlacement> given;
    for (const SlotPlacement& p : gives) {
      full.Give(p);
      given.push_back(p);
      probe.Add(start.AgentIndex(p.agent_id), static_cast<int>(p.slot_ids.size()));
      if (uniform(0, 1) == 0) continue;  // the search asks after each candidate, not placement
      ++checked;
      auto fit = full.Find(slots, single_node, blocked);
      ASSERT_EQ(probe.Fits(), fit.has_value()) << "case " << c;
      if (!fit) continue;
      ++fits;
      gangs += fit->size() > 1;
      zero_slot += slots == 0;
      std::vector<int> hosts = probe.AgentsFindDependsOn();
      PoolLedger partial = start;
      for (const SlotPlacement& q : given) {
        if (std::binary_search(hosts.begin(), hosts.end(), start.AgentIndex(q.agent_id)))
          partial.Give(q);
      }
      ASSERT_EQ(partial.Find(slots, single_node, blocked), fit) << "case " << c;
      break;
    }
  }
  // The generator exercises what it claims to.
  EXPECT_GT(checked, 3000);
  EXPECT_GT(fits, 500);
  EXPECT_GT(gangs, 50);
  EXPECT_GT(zero_slot, 30);
}

}  // namespace
}  // namespace det::scheduler

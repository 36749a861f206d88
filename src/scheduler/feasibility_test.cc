#include "scheduler/feasibility.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace det::scheduler {
namespace {

PoolSnapshot Pool(std::vector<int> sizes, std::string name = "default") {
  PoolSnapshot p;
  p.pool_name = name;
  for (size_t i = 0; i < sizes.size(); ++i) {
    AgentState a;
    a.id = absl::StrCat("a", i);  // "a" + std::to_string(i) trips GCC 12's -Wrestrict at -O3
    a.total_slots = sizes[i];
    for (int s = 0; s < sizes[i]; ++s) a.free_slot_ids.push_back(s);
    p.agents.push_back(a);
  }
  return p;
}

PendingRequest Req(int slots, bool single_node = false) {
  PendingRequest r;
  r.allocation_id = "x.1";
  r.slots = slots;
  r.single_node = single_node;
  return r;
}

TEST(FeasibilityTest, TooManySlotsNamesPoolAndCapacity) {
  absl::Status s = CheckFeasible(Pool({4, 4}), Req(16));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "resources.slots_per_trial: 16 slots requested but pool \"default\" can hold at most 8 "
            "(largest agent: 4 slots)");
}

TEST(FeasibilityTest, SlotlessPool) {
  absl::Status s = CheckFeasible(Pool({0, 0}, "aux"), Req(1), false, "resources.slots");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "resources.slots: 1 slots requested but pool \"aux\" has no slots (its agents have no "
            "devices); request 0 slots or use another resource pool");
  EXPECT_TRUE(CheckFeasible(Pool({0, 0}, "aux"), Req(0)).ok());
  EXPECT_FALSE(CheckFeasible(Pool({}, "empty"), Req(1)).ok());
}

TEST(FeasibilityTest, SingleNodeLimitedToLargestAgent) {
  EXPECT_TRUE(CheckFeasible(Pool({4, 8}), Req(8, true)).ok());
  absl::Status s = CheckFeasible(Pool({4, 4}), Req(8, true));
  EXPECT_EQ(
      s.message(),
      "resources.slots_per_trial: 8 slots requested but pool \"default\" can hold at most 4 on "
      "one agent and resources.is_single_node is set");
}

TEST(FeasibilityTest, GangsUseWholeAgentsOfOneSize) {
  EXPECT_TRUE(CheckFeasible(Pool({4, 4}), Req(8)).ok());
  EXPECT_TRUE(CheckFeasible(Pool({2, 2, 2, 4}), Req(6)).ok());  // 3 agents of 2
  absl::Status s = CheckFeasible(Pool({4, 4}), Req(6));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("must use whole idle agents of one size"), absl::string_view::npos);
  EXPECT_TRUE(CheckFeasible(Pool({4, 4}), Req(6), /*allow_heterogeneous_fits=*/true).ok());
  EXPECT_FALSE(CheckFeasible(Pool({4, 4}), Req(9), true).ok());
}

TEST(FeasibilityTest, FeasiblePendingSplits) {
  PoolSnapshot p = Pool({4});
  p.pending = {Req(2), Req(5), Req(0)};
  p.pending[1].allocation_id = "big.1";
  std::vector<std::string> bad;
  auto ok = FeasiblePending(p, false, &bad);
  EXPECT_EQ(ok.size(), 2u);
  EXPECT_EQ(bad, std::vector<std::string>{"big.1"});
}

}  // namespace
}  // namespace det::scheduler

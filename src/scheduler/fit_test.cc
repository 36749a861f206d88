#include "scheduler/fit.h"

#include <gtest/gtest.h>

namespace det::scheduler {
namespace {

TEST(FitTest, PlacesInOrderOnBestFittingAgent) {
  std::vector<AgentSnapshot> agents = {{"a", "default", {0, 1, 2, 3}, 4}, {"b", "default", {0, 1}, 2}};
  auto r = FitRequests(agents, {{"x", "default", 2}, {"y", "default", 3}, {"z", "default", 2}});
  ASSERT_EQ(r.placed.size(), 2u);
  EXPECT_EQ(r.placed[0].agent_id, "b");  // fewest free slots that still fit
  EXPECT_EQ(r.placed[0].slot_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.placed[1].agent_id, "a");
  EXPECT_EQ(r.placed[1].slot_ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(r.waiting, std::vector<std::string>{"z"});
  EXPECT_TRUE(r.infeasible.empty());
}

TEST(FitTest, TooLargeOrWrongPoolIsInfeasible) {
  std::vector<AgentSnapshot> agents = {{"a", "default", {0, 1}, 2}};
  auto r = FitRequests(agents, {{"x", "default", 3}, {"y", "gpu", 1}});
  EXPECT_TRUE(r.placed.empty());
  EXPECT_EQ(r.infeasible, (std::vector<std::string>{"x", "y"}));
}

TEST(FitTest, ZeroSlotRequestsAlwaysPlace) {
  auto r = FitRequests({{"a", "default", {}, 2}}, {{"x", "default", 0}});
  ASSERT_EQ(r.placed.size(), 1u);
  EXPECT_TRUE(r.placed[0].slot_ids.empty());
}

}  // namespace
}  // namespace det::scheduler

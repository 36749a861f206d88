#include "master/rm/resources_id.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master {
namespace {

TEST(ResourcesIdTest, AGangsProcessesAreNumberedAndReadBack) {
  EXPECT_EQ(ResourcesId("7.1.1", 0, 1), "7.1.1") << "a single process is the allocation";
  EXPECT_EQ(ResourcesId("7.1.1", 2, 3), "7.1.1.2");
  EXPECT_EQ(*RankOfResources("7.1.1", "7.1.1"), 0);
  EXPECT_EQ(*RankOfResources("7.1.1", ResourcesId("7.1.1", 2, 3)), 2);
  for (const char* other : {"7.1.2.0", "7.1.1.x", "7.1.1.-1", "7.1.10"}) {
    absl::StatusOr<int> rank = RankOfResources("7.1.1", other);
    EXPECT_TRUE(absl::IsInvalidArgument(rank.status())) << other;
  }
  EXPECT_THAT(RankOfResources("7.1.1", "x").status().message(), ::testing::HasSubstr("7.1.1 or 7.1.1.<rank>"));
}

}  // namespace
}  // namespace det::master

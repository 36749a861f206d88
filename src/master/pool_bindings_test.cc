#include "master/pool_bindings.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

const std::vector<std::string> kPools = {"default", "gpu", "cpu"};

TEST(PoolBindingsTest, ABoundPoolServesOnlyItsWorkspacesAndAnUnboundOneEveryWorkspace) {
  std::vector<PoolBinding> bindings = {{"gpu", 2}, {"gpu", 3}};
  EXPECT_EQ(PoolsAvailableTo(kPools, bindings, 2), kPools);
  EXPECT_EQ(PoolsAvailableTo(kPools, bindings, 4), (std::vector<std::string>{"default", "cpu"}));
  EXPECT_EQ(PoolsAvailableTo(kPools, {}, 4), kPools);

  Workspace other{.id = 4, .name = "nlp"};
  EXPECT_TRUE(CheckPoolAvailable(kPools, bindings, {.id = 2, .name = "vision"}, "gpu").ok());
  EXPECT_TRUE(CheckPoolAvailable(kPools, bindings, other, "").ok()) << "the default pool";
  EXPECT_TRUE(CheckPoolAvailable(kPools, bindings, other, "cpu").ok());
  absl::Status refused = CheckPoolAvailable(kPools, bindings, other, "gpu");
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(),
            "resources.resource_pool: pool \"gpu\" is bound to other workspaces; workspace nlp may use: default, cpu");
}

TEST(PoolBindingsTest, OnlyAnExistingPoolThatIsNotADefaultIsBound) {
  EXPECT_TRUE(CheckBindable("gpu", kPools, {"default"}).ok());
  EXPECT_EQ(CheckBindable("default", kPools, {"default"}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CheckBindable("tpu", kPools, {"default"}).message(),
            "resource pool \"tpu\" not found (the pools: default, gpu, cpu)");
}

}  // namespace
}  // namespace det::master

#include "harness/core_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "harness/test_util.h"

namespace det::harness {
namespace {

TEST(CoreContextTest, OffClusterContextStoresLocallyAndNeverPreempts) {
  for (const char* v : {"DET_MASTER", "DET_ALLOCATION_ID", "DET_TRIAL_ID"}) unsetenv(v);
  TempDir tmp;
  auto core = CoreContext::Init(InitOptions{.checkpoint_storage_path = tmp.path().string()});
  ASSERT_TRUE(core.ok()) << core.status();
  CoreContext& c = **core;
  EXPECT_FALSE(c.info().has_value());
  EXPECT_TRUE(c.train().ReportTrainingMetrics(1, {{"loss", 0.5}}, nullptr).ok());
  EXPECT_TRUE(c.train().ReportValidationMetrics(1, {{"accuracy", 0.9}}).ok());
  EXPECT_FALSE(c.preempt().ShouldPreempt());

  auto pending = c.checkpoint().BeginStore();
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_TRUE(WriteFile(pending->path / "w", "x").ok());
  ASSERT_TRUE(c.checkpoint().CommitStore(*pending, {{"steps_completed", 1}}).ok());
  auto restored = c.checkpoint().RestorePath(pending->uuid);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*restored, tmp.path() / pending->uuid);
  EXPECT_TRUE(c.Close().ok());
  EXPECT_TRUE(c.Close().ok());
}

}  // namespace
}  // namespace det::harness

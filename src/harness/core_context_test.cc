#include "harness/core_context.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>
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

TEST(CoreContextTest, WorkersOfOneTrialShareAGroupAndStopTogether) {
  for (const char* v : {"DET_MASTER", "DET_ALLOCATION_ID", "DET_TRIAL_ID"}) unsetenv(v);
  TempDir tmp;
  int port = FreePort();
  std::vector<std::thread> workers;
  for (int rank = 0; rank < 2; ++rank) {
    workers.emplace_back([&, rank] {
      auto core = CoreContext::Init(InitOptions{
          .checkpoint_storage_path = tmp.path().string(),
          .distributed = {.rank = rank, .size = 2, .port = port, .join_timeout = std::chrono::seconds(20)}});
      ASSERT_TRUE(core.ok()) << core.status();
      EXPECT_EQ((*core)->distributed().rank(), rank);
      EXPECT_FALSE((*core)->preempt().ShouldPreempt()) << "off-cluster the chief never preempts";
      auto all = (*core)->distributed().AllGather(std::to_string(rank));
      ASSERT_TRUE(all.ok()) << all.status();
      EXPECT_EQ(*all, (std::vector<std::string>{"0", "1"}));
    });
  }
  for (std::thread& t : workers) t.join();
}

TEST(CoreContextTest, TheTorchDistributedEnvironmentNamesTheGroup) {
  unsetenv("WORLD_SIZE");
  auto lone = WorkerGroupFromTorchDistributed();
  ASSERT_TRUE(lone.ok());
  EXPECT_EQ(lone->size, 1);
  setenv("WORLD_SIZE", "4", 1);
  setenv("RANK", "2", 1);
  setenv("DET_CHIEF_IP", "10.1.2.3", 1);
  setenv("DET_CHIEF_PORT", "31000", 1);
  auto group = WorkerGroupFromTorchDistributed();
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->rank, 2);
  EXPECT_EQ(group->size, 4);
  EXPECT_EQ(group->chief_ip, "10.1.2.3");
  EXPECT_EQ(group->port, 31000);
  setenv("RANK", "two", 1);
  EXPECT_FALSE(WorkerGroupFromTorchDistributed().ok());
  for (const char* v : {"WORLD_SIZE", "RANK", "DET_CHIEF_IP", "DET_CHIEF_PORT"}) unsetenv(v);
}

}  // namespace
}  // namespace det::harness

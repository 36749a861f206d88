#include "master/handlers/task_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

TEST(TaskJsonTest, CommandShowsItsLatestAllocation) {
  Task t{.task_id = "abc", .type = TaskType::kCommand, .owner_id = 2, .username = "determined", .job_id = "j",
         .description = "Command (a-b-c)", .config_json = R"({"resources":{"resource_pool":"default"}})"};
  nlohmann::json queued = CommandJson(t, std::nullopt);
  EXPECT_EQ(queued["state"], "STATE_QUEUED");
  EXPECT_TRUE(queued["container"].is_null());
  EXPECT_EQ(queued["resourcePool"], "default");
  EXPECT_TRUE(queued["exitCode"].is_null());
  Allocation a{.allocation_id = "abc.1", .task_id = "abc", .state = AllocationState::kRunning,
               .placements = {{"agent-1", {0}}}};
  nlohmann::json running = CommandJson(t, a);
  EXPECT_EQ(running["state"], "STATE_RUNNING");
  EXPECT_EQ(running["container"]["parent"], "agent-1");
  t.state = TaskState::kStoppingCanceled;
  EXPECT_EQ(CommandJson(t, a)["state"], "STATE_TERMINATING");
  t.state = TaskState::kError;
  t.exit_code = 3;
  EXPECT_EQ(CommandJson(t, a)["state"], "STATE_TERMINATED");
  EXPECT_EQ(CommandJson(t, a)["exitCode"], 3);
}

TEST(TaskJsonTest, TaskListsItsAllocations) {
  Task t{.task_id = "g", .type = TaskType::kGeneric, .state = TaskState::kPaused};
  nlohmann::json j = TaskJson(t, {Allocation{.allocation_id = "g.1", .task_id = "g",
                                             .state = AllocationState::kTerminated}});
  EXPECT_EQ(j["taskType"], "TASK_TYPE_GENERIC");
  EXPECT_EQ(j["taskState"], "TASK_STATE_PAUSED");
  EXPECT_EQ(j["allocations"][0]["state"], "STATE_TERMINATED");
  EXPECT_EQ(j["noPause"], false);
  EXPECT_EQ(TaskDisplayState(t, std::nullopt), "STATE_TERMINATED");
}

}  // namespace
}  // namespace det::master

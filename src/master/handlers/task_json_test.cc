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
  EXPECT_EQ(running["container"]["state"], "STATE_RUNNING");  // a containerv1State, not a task state
  EXPECT_EQ(running["container"]["devices"], nlohmann::json::array());  // a row from before devices were kept
  a.placements[0].devices = {{.id = 0, .type = "cuda", .device = "NVIDIA H200", .uuid = "GPU-7033"}};
  EXPECT_EQ(CommandJson(t, a)["container"]["devices"],
            nlohmann::json::parse(R"([{"id":0,"brand":"NVIDIA H200","uuid":"GPU-7033","type":"TYPE_CUDA"}])"));
  a.state = AllocationState::kAssigned;
  EXPECT_EQ(CommandJson(t, a)["state"], "STATE_QUEUED");
  EXPECT_EQ(CommandJson(t, a)["container"]["state"], "STATE_ASSIGNED");
  a.state = AllocationState::kTerminating;
  EXPECT_EQ(CommandJson(t, a)["container"]["state"], "STATE_RUNNING");
  a.state = AllocationState::kRunning;
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
                                             .state = AllocationState::kTerminated, .slots = 2, .exit_code = 0},
                                  Allocation{.allocation_id = "g.2", .task_id = "g"}});
  EXPECT_EQ(j["taskType"], "TASK_TYPE_GENERIC");
  EXPECT_EQ(j["taskState"], "GENERIC_TASK_STATE_PAUSED");  // a v1GenericTaskState
  EXPECT_EQ(j["allocations"][0]["state"], "STATE_TERMINATED");
  EXPECT_EQ(j["allocations"][0]["slots"], 2);
  EXPECT_EQ(j["allocations"][0]["statusCode"], 0);
  EXPECT_EQ(j["allocations"][1]["state"], "STATE_QUEUED");  // taskv1State has no PENDING
  EXPECT_FALSE(j["allocations"][1].contains("statusCode")) << "a proto3 optional: absent until it exits";
  EXPECT_EQ(j["noPause"], false);
  EXPECT_EQ(TaskDisplayState(t, std::nullopt), "STATE_TERMINATED");
}

TEST(TaskJsonTest, InteractiveKindsShowTheirServiceAndAreReadyWhenTheySaySo) {
  Task nb{.task_id = "n", .type = TaskType::kNotebook, .service_json = R"({"token":"tok"})"};
  Allocation running{.allocation_id = "n.1", .task_id = "n", .state = AllocationState::kRunning,
                     .placements = {{"agent-1", {0}}}};
  EXPECT_EQ(ServiceTaskJson(nb, running)["serviceAddress"], "/proxy/n/?token=tok");
  EXPECT_EQ(TaskJson(nb, {running})["allocations"][0]["isReady"], false) << "running is not serving";
  running.ready = true;
  EXPECT_EQ(TaskJson(nb, {running})["allocations"][0]["isReady"], true);
  Task cmd{.task_id = "c", .type = TaskType::kCommand};
  Allocation cmd_running{.allocation_id = "c.1", .task_id = "c", .state = AllocationState::kRunning};
  EXPECT_EQ(TaskJson(cmd, {cmd_running})["allocations"][0]["isReady"], true) << "a command is ready as it runs";

  Task shell{.task_id = "s", .type = TaskType::kShell,
             .service_json = R"({"private_key":"PEM","public_key":"ssh-rsa AAAA"})"};
  Allocation serving{.allocation_id = "s.1", .task_id = "s", .state = AllocationState::kRunning,
                     .ready = true, .service_address = "10.0.0.2:3200", .service_user = "alice"};
  nlohmann::json j = ServiceTaskJson(shell, serving);
  EXPECT_EQ(j["privateKey"], "PEM");
  EXPECT_EQ(j["addresses"], nlohmann::json::parse(R"([{"host":"10.0.0.2","port":3200}])"));
  EXPECT_EQ(j["agentUserGroup"]["user"], "alice");
  EXPECT_TRUE(ServiceTaskJson(shell, std::nullopt)["addresses"].empty());

  Task tb{.task_id = "t", .type = TaskType::kTensorboard, .service_json = R"({"experiment_ids":[3],"trial_ids":[]})"};
  nlohmann::json t = ServiceTaskJson(tb, std::nullopt);
  EXPECT_EQ(t["serviceAddress"], "/proxy/t/");
  EXPECT_EQ(t["experimentIds"], nlohmann::json::array({3}));
}

}  // namespace
}  // namespace det::master

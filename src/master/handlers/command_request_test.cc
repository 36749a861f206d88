#include "master/handlers/command_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

config::MasterConfig MasterWithDefaults() {
  config::MasterConfig m;
  m.task_container_defaults_json = R"({"work_dir": "/srv", "environment_variables": ["FROM=master"]})";
  config::ResourcePoolConfig gpu;
  gpu.pool_name = "gpu";
  gpu.task_container_defaults_json = R"({"environment_variables": ["FROM=pool"]})";
  m.resource_pools = {gpu};
  return m;
}

TEST(CommandRequestTest, LayersTheMasterDefaultsTheTemplateAndTheConfig) {
  TempSqliteStore store("det_command_request_test");
  ASSERT_TRUE(store->InsertTemplate({.name = "t", .config_json = R"({"resources": {"priority": 7}})"}).ok());
  config::MasterConfig master = MasterWithDefaults();
  absl::StatusOr<NewTask> task = ParseLaunchCommand(
      *store, master, {{"config", {{"entrypoint", {"echo", "hi"}}}}, {"templateName", "t"}}, 1 << 20);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->config.priority, 7);
  EXPECT_EQ(task->config.work_dir, "/srv");
  EXPECT_EQ(task->config.environment_variables, (std::vector<std::string>{"FROM=master"}));
  EXPECT_TRUE(task->context_tgz.empty());
  // Upstream's CLI sends the template's name as template_name.
  absl::StatusOr<NewTask> snake = ParseLaunchCommand(
      *store, master, {{"config", {{"entrypoint", {"echo", "hi"}}}}, {"template_name", "t"}}, 1 << 20);
  ASSERT_TRUE(snake.ok()) << snake.status();
  EXPECT_EQ(snake->config.priority, 7);

  absl::StatusOr<NewTask> pooled = ParseLaunchCommand(
      *store, master, {{"config", {{"entrypoint", {"x"}}, {"resources", {{"resource_pool", "gpu"}}}}}}, 1 << 20);
  ASSERT_TRUE(pooled.ok());
  EXPECT_EQ(pooled->config.environment_variables, (std::vector<std::string>{"FROM=pool"}));
}

TEST(CommandRequestTest, RefusesAnUnknownTemplateAndAContextOverTheLimit) {
  TempSqliteStore store("det_command_request_test2");
  absl::Status missing =
      ParseLaunchCommand(*store, {}, {{"config", {{"entrypoint", {"x"}}}}, {"templateName", "nope"}}, 1 << 20).status();
  EXPECT_TRUE(absl::IsInvalidArgument(missing));
  EXPECT_THAT(missing.message(), HasSubstr("templateName: no template named \"nope\""));
  json files = json::array({{{"path", "big.bin"}, {"type", 48}, {"content", std::string(4000, 'A')}}});
  absl::Status big = ParseLaunchCommand(*store, {}, {{"config", {{"entrypoint", {"x"}}}}, {"files", files}}, 1000).status();
  EXPECT_THAT(big.message(), HasSubstr("context directory is too large"));
}

TEST(CommandRequestTest, GenericTaskConfigIsYamlText) {
  TempSqliteStore store("det_command_request_test3");
  absl::StatusOr<NewTask> task =
      ParseCreateGenericTask(*store, {}, {{"config", "entrypoint: [\"echo\", \"task ran\"]\n"}}, 1 << 20);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->type, TaskType::kGeneric);
  EXPECT_EQ(task->config.entrypoint, (std::vector<std::string>{"echo", "task ran"}));
  EXPECT_TRUE(task->forked_from.empty());
  EXPECT_THAT(ParseCreateGenericTask(*store, {}, {{"config", "entrypoint: [1, 2"}}, 1 << 20).status().message(),
              HasSubstr("config"));
  EXPECT_THAT(ParseCreateGenericTask(*store, {}, json::object(), 1 << 20).status().message(), HasSubstr("config: required"));
  EXPECT_THAT(ParseCreateGenericTask(*store, {}, {{"config", "entrypoint: [x]\nbogus: 1\n"}}, 1 << 20).status().message(),
              HasSubstr("bogus"));
}

TEST(CommandRequestTest, AForkRunsInItsParentsContextUnlessItBringsItsOwn) {
  TempSqliteStore store("det_command_request_test4");
  ASSERT_TRUE(store->InsertTask({.task_id = "parent", .type = TaskType::kGeneric, .owner_id = 2, .job_id = "j",
                                 .config_json = "{}", .start_time = std::chrono::system_clock::now()},
                                "parent-tgz")
                  .ok());
  const std::string config = "entrypoint: [x]\n";
  absl::StatusOr<NewTask> fork = ParseCreateGenericTask(*store, {}, {{"config", config}, {"forkedFrom", "parent"}}, 1 << 20);
  ASSERT_TRUE(fork.ok()) << fork.status();
  EXPECT_EQ(fork->forked_from, "parent");
  EXPECT_EQ(fork->context_tgz, "parent-tgz");
  json files = json::array({{{"path", "own.txt"}, {"type", 48}, {"content", ""}}});
  absl::StatusOr<NewTask> own = ParseCreateGenericTask(
      *store, {}, {{"config", config}, {"forkedFrom", "parent"}, {"contextDirectory", files}}, 1 << 20);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_NE(own->context_tgz, "parent-tgz");
  EXPECT_FALSE(own->context_tgz.empty());
  absl::Status unknown = ParseCreateGenericTask(*store, {}, {{"config", config}, {"forkedFrom", "nope"}}, 1 << 20).status();
  EXPECT_TRUE(absl::IsInvalidArgument(unknown));
  EXPECT_THAT(unknown.message(), HasSubstr("forkedFrom: no task nope to fork from"));
}

TEST(CommandRequestTest, ATaskRunsInItsWorkspaceUnderItsDefaultPoolsAndBindings) {
  TempSqliteStore store("det_command_request_test5");
  config::MasterConfig master = MasterWithDefaults();
  Workspace ws = *store->InsertWorkspace({.name = "vision", .user_id = 1, .default_compute_pool = "gpu",
                                          .default_aux_pool = "cpu"});
  const json command = {{"entrypoint", {"x"}}};
  absl::StatusOr<NewTask> task = ParseLaunchCommand(*store, master, {{"config", command}, {"workspaceId", ws.id}}, 1 << 20);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->workspace_id, ws.id);
  EXPECT_EQ(task->config.resource_pool, "gpu") << "the workspace's default compute pool";
  absl::StatusOr<NewTask> cpu = ParseLaunchCommand(
      *store, master, {{"config", {{"entrypoint", {"x"}}, {"resources", {{"slots", 0}}}}}, {"workspaceId", ws.id}},
      1 << 20);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->config.resource_pool, "cpu") << "no slots: the default aux pool";
  EXPECT_EQ(ParseLaunchCommand(*store, master, {{"config", command}}, 1 << 20)->workspace_id, 1);
  EXPECT_EQ(ParseLaunchCommand(*store, master, {{"config", command}, {"workspaceId", 99}}, 1 << 20).status().code(),
            absl::StatusCode::kNotFound);

  ASSERT_TRUE(store->BindPool("gpu", {ws.id}, false).ok());
  absl::Status bound = ParseLaunchCommand(
      *store, master, {{"config", {{"entrypoint", {"x"}}, {"resources", {{"resource_pool", "gpu"}}}}}}, 1 << 20)
                           .status();
  EXPECT_THAT(bound.message(), HasSubstr("pool \"gpu\" is bound to other workspaces"));
  ASSERT_TRUE(store->SetWorkspaceArchived(ws.id, true).ok());
  EXPECT_EQ(ParseLaunchCommand(*store, master, {{"config", command}, {"workspaceId", ws.id}}, 1 << 20).status().code(),
            absl::StatusCode::kFailedPrecondition);

  Project p = *store->InsertProject({.name = "p", .workspace_id = ws.id, .user_id = 1, .key = "P"});
  ASSERT_TRUE(store->SetWorkspaceArchived(ws.id, false).ok());
  absl::StatusOr<NewTask> generic =
      ParseCreateGenericTask(*store, master, {{"config", "entrypoint: [x]\n"}, {"projectId", p.id}}, 1 << 20);
  ASSERT_TRUE(generic.ok()) << generic.status();
  EXPECT_EQ(generic->workspace_id, ws.id) << "a generic task runs in its project's workspace";
  EXPECT_EQ(ParseCreateGenericTask(*store, master, {{"config", "entrypoint: [x]\n"}, {"projectId", 99}}, 1 << 20)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(CommandRequestTest, InteractiveTasksRunTheirRunnerAndTensorboardsHoldNoSlots) {
  TempSqliteStore store("det_command_request_test4");
  absl::StatusOr<NewTask> nb = ParseLaunchCommand(
      *store, {}, {{"config", {{"entrypoint", {"ignored"}}, {"idle_timeout", "5m"}}}}, 1 << 20, TaskType::kNotebook);
  ASSERT_TRUE(nb.ok()) << nb.status();
  EXPECT_EQ(nb->type, TaskType::kNotebook);
  EXPECT_EQ(nb->config.entrypoint, (std::vector<std::string>{"python3", "-m", "determined.exec.notebook"}));
  EXPECT_EQ(nb->config.idle_timeout, std::chrono::minutes(5));
  absl::StatusOr<NewTask> tb = ParseLaunchCommand(*store, {}, {{"config", {{"resources", {{"slots", 2}}}}}}, 1 << 20,
                                                  TaskType::kTensorboard);
  ASSERT_TRUE(tb.ok()) << tb.status();
  EXPECT_EQ(tb->config.slots, 0);
  absl::Status bad_idle = ParseLaunchCommand(*store, {}, {{"config", {{"idle_timeout", "soon"}}}}, 1 << 20,
                                             TaskType::kNotebook)
                              .status();
  EXPECT_THAT(bad_idle.message(), HasSubstr("idle_timeout: \"soon\" is not a duration"));
}

TEST(CommandRequestTest, ServiceDataPerType) {
  TempSqliteStore store("det_command_request_test5");
  json notebook = json::parse(*ServiceDataFor(*store, TaskType::kNotebook, json::object()));
  EXPECT_EQ(notebook["token"].get<std::string>().size(), 64u);
  json shell = json::parse(*ServiceDataFor(*store, TaskType::kShell, json::object()));
  EXPECT_THAT(shell["public_key"].get<std::string>(), HasSubstr("ssh-rsa "));
  absl::StatusOr<std::string> none = ServiceDataFor(*store, TaskType::kTensorboard, json::object());
  EXPECT_TRUE(absl::IsInvalidArgument(none.status()));
  absl::StatusOr<std::string> unknown = ServiceDataFor(*store, TaskType::kTensorboard, {{"experimentIds", {42}}});
  EXPECT_TRUE(absl::IsNotFound(unknown.status())) << unknown.status();
  EXPECT_EQ(*ServiceDataFor(*store, TaskType::kCommand, json::object()), "{}");
}

}  // namespace
}  // namespace det::master

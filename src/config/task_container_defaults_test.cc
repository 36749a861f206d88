#include "config/task_container_defaults.h"

#include <gtest/gtest.h>

#include "config/merge.h"

namespace det::config {
namespace {

using nlohmann::json;

TEST(TaskContainerDefaultsTest, TheExperimentKeysBecomeAConfigLayer) {
  json tcd = {{"shm_size_bytes", 4294967296},
              {"network_mode", "bridge"},
              {"preemption_timeout", 60},
              {"environment_variables", {"A=1"}},
              {"bind_mounts", {{{"host_path", "/data"}, {"container_path", "/data"}}}},
              {"devices", {"/dev/fuse:/dev/fuse"}},
              {"log_policies", {{{"name", "oom"}, {"pattern", ".*OOM.*"}}}}};
  EXPECT_EQ(ExperimentConfigDefaults(tcd),
            (json{{"environment", {{"environment_variables", {"A=1"}}}},
                  {"resources", {{"devices", {"/dev/fuse:/dev/fuse"}}}},
                  {"bind_mounts", tcd["bind_mounts"]},
                  {"log_policies", tcd["log_policies"]},
                  {"preemption_timeout", 60}}));
  EXPECT_EQ(ExperimentConfigDefaults(json{{"shm_size_bytes", 1}}), json::object());
  EXPECT_EQ(ExperimentConfigDefaults(json()), json::object());
}

TEST(TaskContainerDefaultsTest, TheStartupHookTravelsAsAnEnvironmentVariable) {
  json hook = ExperimentConfigDefaults(json{{"startup_hook", "echo hi\nexport X=1"}});
  EXPECT_EQ(hook["environment"]["environment_variables"],
            json::array({std::string(kStartupHookVariable) + "=echo hi\nexport X=1"}));
  json per_device = EnvironmentVariablesWithStartupHook(
      json{{"startup_hook", "true"}, {"environment_variables", {{"cuda", {"C=1"}}}}});
  EXPECT_EQ(per_device["cuda"], json::array({"C=1", std::string(kStartupHookVariable) + "=true"}));
  EXPECT_EQ(per_device["cpu"], json::array({std::string(kStartupHookVariable) + "=true"}));
}

TEST(TaskContainerDefaultsTest, TheUsersConfigWinsAndEnvironmentVariablesCombine) {
  json user = {{"preemption_timeout", 10}, {"environment", {{"environment_variables", {"B=2"}}}}};
  json merged = MergeExperimentConfig(
      user, ExperimentConfigDefaults(json{{"preemption_timeout", 60}, {"environment_variables", {"A=1"}}}));
  EXPECT_EQ(merged["preemption_timeout"], 10);
  EXPECT_EQ(merged["environment"]["environment_variables"], json::array({"A=1", "B=2"}));
}

TEST(TaskContainerDefaultsTest, ThePoolsOwnDefaultsApplyElseTheMasters) {
  auto master = LoadMasterConfig(
      "task_container_defaults: {environment_variables: [FROM=master]}\n"
      "resource_manager: {type: agent, default_compute_resource_pool: gpu, default_aux_resource_pool: cpu}\n"
      "resource_pools:\n"
      "  - {pool_name: gpu, task_container_defaults: {environment_variables: [FROM=gpu]}}\n"
      "  - {pool_name: cpu}\n",
      {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(master.ok()) << master.status();
  auto from = [&](const json& config, const json& tmpl) {
    return TaskContainerDefaultsFor(*master, config, tmpl)["environment_variables"];
  };
  EXPECT_EQ(from(json::object(), nullptr), json::array({"FROM=gpu"})) << "the default compute pool's";
  EXPECT_EQ(from(json{{"resources", {{"resource_pool", "cpu"}}}}, nullptr), json::array({"FROM=master"}));
  EXPECT_EQ(from(json::object(), json{{"resources", {{"resource_pool", "cpu"}}}}), json::array({"FROM=master"}))
      << "the template names the pool";
}

}  // namespace
}  // namespace det::config

#include "harness/cluster_info.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

namespace det::harness {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::map<std::string, std::string> TrialEnv() {
  return {{"DET_MASTER", "http://127.0.0.1:8080"},
          {"DET_CLUSTER_ID", "c1"},
          {"DET_MASTER_ID", "m1"},
          {"DET_AGENT_ID", "agent-1"},
          {"DET_SLOT_IDS", "[0,1]"},
          {"DET_TASK_ID", "1.1"},
          {"DET_ALLOCATION_ID", "1.1.1"},
          {"DET_SESSION_TOKEN", "tok"},
          {"DET_TASK_TYPE", "TRIAL"},
          {"DET_USER", "determined"},
          {"DET_EXPERIMENT_ID", "1"},
          {"DET_TRIAL_ID", "7"},
          {"DET_TRIAL_RUN_ID", "2"},
          {"DET_TRIAL_SEED", "4294967295"},
          {"DET_HPARAMS", R"({"lr":0.1,"opt":{"name":"sgd"}})"},
          {"DET_EXPERIMENT_CONFIG", R"({"name":"x","data":{"k":1}})"},
          {"DET_STEPS_COMPLETED", "40"},
          {"DET_LATEST_CHECKPOINT", "abc-uuid"}};
}

TEST(ClusterInfoTest, OffClusterWithoutMaster) {
  auto info = ParseClusterInfo(Env({}));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->has_value());
}

TEST(ClusterInfoTest, MasterAloneIsNotACluster) {
  // Users export DET_MASTER for the CLI; that alone must not make a script think it is a task.
  auto info = ParseClusterInfo(Env({{"DET_MASTER", "localhost:8080"}}));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->has_value());
}

TEST(ClusterInfoTest, ParsesTrialEnvironment) {
  auto info = ParseClusterInfo(Env(TrialEnv()));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(info->has_value());
  const ClusterInfo& ci = **info;
  EXPECT_EQ(ci.master_url, "http://127.0.0.1:8080");
  EXPECT_EQ(ci.cluster_id, "c1");
  EXPECT_EQ(ci.agent_id, "agent-1");
  EXPECT_EQ(ci.slot_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(ci.task_id, "1.1");
  EXPECT_EQ(ci.allocation_id, "1.1.1");
  EXPECT_EQ(ci.session_token, "tok");
  EXPECT_EQ(ci.task_type, "TRIAL");
  EXPECT_EQ(ci.latest_checkpoint, std::optional<std::string>("abc-uuid"));
  ASSERT_TRUE(ci.trial.has_value());
  EXPECT_EQ(ci.trial->trial_id, 7);
  EXPECT_EQ(ci.trial->experiment_id, 1);
  EXPECT_EQ(ci.trial->trial_run_id, 2);
  EXPECT_EQ(ci.trial->trial_seed, 4294967295u);
  EXPECT_EQ(ci.trial->steps_completed, 40);
  EXPECT_EQ(nlohmann::json::parse(ci.trial->hparams_json)["opt"]["name"], "sgd");
  EXPECT_EQ(nlohmann::json::parse(ci.trial->config_json)["data"]["k"], 1);
}

TEST(ClusterInfoTest, EmptyLatestCheckpointIsNone) {
  auto env = TrialEnv();
  env["DET_LATEST_CHECKPOINT"] = "";
  auto info = ParseClusterInfo(Env(env));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)->latest_checkpoint.has_value());
  env.erase("DET_LATEST_CHECKPOINT");
  info = ParseClusterInfo(Env(env));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)->latest_checkpoint.has_value());
}

TEST(ClusterInfoTest, MissingTrialVariablesAreNamed) {
  auto env = TrialEnv();
  env.erase("DET_HPARAMS");
  env.erase("DET_TRIAL_SEED");
  auto info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(info.status().message().find("DET_TRIAL_SEED, DET_HPARAMS"), std::string::npos)
      << info.status();
}

TEST(ClusterInfoTest, MissingTokenIsAnError) {
  auto env = TrialEnv();
  env.erase("DET_SESSION_TOKEN");
  auto info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("DET_SESSION_TOKEN"), std::string::npos);
}

TEST(ClusterInfoTest, MalformedValuesAreNamed) {
  auto env = TrialEnv();
  env["DET_TRIAL_ID"] = "seven";
  auto info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("DET_TRIAL_ID"), std::string::npos);

  env = TrialEnv();
  env["DET_HPARAMS"] = "[1,2]";
  info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("DET_HPARAMS"), std::string::npos);

  env = TrialEnv();
  env["DET_SLOT_IDS"] = "0,1";
  info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("DET_SLOT_IDS"), std::string::npos);

  env = TrialEnv();
  env["DET_TRIAL_SEED"] = "-1";
  info = ParseClusterInfo(Env(env));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("DET_TRIAL_SEED"), std::string::npos);
}

TEST(ClusterInfoTest, NonTrialTaskHasNoTrialInfo) {
  auto info = ParseClusterInfo(Env({{"DET_MASTER", "http://m:8080"},
                                    {"DET_TASK_ID", "cmd-1"},
                                    {"DET_ALLOCATION_ID", "cmd-1.1"},
                                    {"DET_SESSION_TOKEN", "t"},
                                    {"DET_TASK_TYPE", "COMMAND"},
                                    {"DET_LATEST_CHECKPOINT", "ignored"}}));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(info->has_value());
  EXPECT_EQ((*info)->task_type, "COMMAND");
  EXPECT_FALSE((*info)->trial.has_value());
  EXPECT_FALSE((*info)->latest_checkpoint.has_value());
  EXPECT_TRUE((*info)->slot_ids.empty());
}

TEST(ClusterInfoTest, TaskTypeDefaultsToTrialWhenTrialIdIsSet) {
  auto env = TrialEnv();
  env.erase("DET_TASK_TYPE");
  auto info = ParseClusterInfo(Env(env));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)->task_type, "TRIAL");
  EXPECT_TRUE((*info)->trial.has_value());
}

}  // namespace
}  // namespace det::harness

namespace det::harness {
namespace {

TEST(ClusterInfoTest, ALoneProcessIsRankZeroOfOne) {
  auto info = ParseClusterInfo(Env(TrialEnv()));
  ASSERT_TRUE(info.ok() && info->has_value()) << info.status();
  EXPECT_EQ((*info)->rendezvous.container_addrs, std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ((*info)->rendezvous.container_rank, 0);
  EXPECT_EQ((*info)->rendezvous.container_slot_counts, std::vector<int>{2}) << "DET_SLOT_IDS has two";
}

TEST(ClusterInfoTest, ReadsTheRendezvousInfo) {
  auto env = TrialEnv();
  env["DET_RENDEZVOUS_INFO"] =
      R"({"container_addrs":["10.0.0.1","10.0.0.2"],"container_rank":1,"container_slot_counts":[2,2]})";
  auto info = ParseClusterInfo(Env(env));
  ASSERT_TRUE(info.ok() && info->has_value()) << info.status();
  EXPECT_EQ((*info)->rendezvous.container_addrs, (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ((*info)->rendezvous.container_rank, 1);
  EXPECT_EQ((*info)->rendezvous.container_slot_counts, (std::vector<int>{2, 2}));
}

TEST(ClusterInfoTest, MalformedRendezvousInfoIsNamed) {
  for (const char* bad : {"[]", R"({"container_addrs":["a"],"container_rank":1,"container_slot_counts":[1]})",
                          R"({"container_addrs":["a","b"],"container_rank":0,"container_slot_counts":[1]})",
                          R"({"container_addrs":[1],"container_rank":0,"container_slot_counts":[1]})"}) {
    auto env = TrialEnv();
    env["DET_RENDEZVOUS_INFO"] = bad;
    auto info = ParseClusterInfo(Env(env));
    ASSERT_FALSE(info.ok()) << bad;
    EXPECT_NE(info.status().message().find("DET_RENDEZVOUS_INFO"), std::string::npos) << info.status();
  }
}

}  // namespace
}  // namespace det::harness

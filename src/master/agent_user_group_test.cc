#include "master/agent_user_group.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

using nlohmann::json;

TEST(AgentUserGroupTest, AllFourFieldsMakeTheTaskUser) {
  absl::StatusOr<api::TaskUser> user =
      ParseAgentUserGroup(json{{"agentUid", 1001}, {"agentGid", "1002"}, {"agentUser", "alice"}, {"agentGroup", "ml"}});
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(*user, (api::TaskUser{.uid = 1001, .gid = 1002, .user = "alice", .group = "ml"}));
}

TEST(AgentUserGroupTest, AMissingOrBadFieldIsNamed) {
  json good = {{"agentUid", 1}, {"agentGid", 1}, {"agentUser", "a"}, {"agentGroup", "g"}};
  auto error = [&](const char* field, const json& value) {
    json body = good;
    if (value.is_null()) {
      body.erase(field);
    } else {
      body[field] = value;
    }
    return std::string(ParseAgentUserGroup(body).status().message());
  };
  EXPECT_EQ(error("agentUid", json()), "agentUserGroup.agentUid is required");
  EXPECT_EQ(error("agentGid", -1), "agentUserGroup.agentGid must be from 0 to 4294967294, got -1");
  EXPECT_EQ(error("agentUid", 4294967295LL), "agentUserGroup.agentUid must be from 0 to 4294967294, got 4294967295");
  EXPECT_EQ(error("agentUser", ""), "agentUserGroup.agentUser is required: the name of the user or group");
  EXPECT_FALSE(ParseAgentUserGroup(json::array()).ok());
}

TEST(AgentUserGroupTest, AWorkspaceWithoutAGroupRunsTasksAsTheAgent) {
  EXPECT_FALSE(TaskUserOfWorkspace("")->has_value());
  EXPECT_FALSE(TaskUserOfWorkspace("{}")->has_value());
  auto user = TaskUserOfWorkspace(R"({"agentUid":7,"agentGid":8,"agentUser":"u","agentGroup":"g"})");
  ASSERT_TRUE(user.ok() && user->has_value());
  EXPECT_EQ((*user)->uid, 7u);
}

}  // namespace
}  // namespace det::master

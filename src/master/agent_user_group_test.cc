#include "master/agent_user_group.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"

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
  EXPECT_FALSE(TaskUserOfGroup("")->has_value());
  EXPECT_FALSE(TaskUserOfGroup("{}")->has_value());
  auto user = TaskUserOfGroup(R"({"agentUid":7,"agentGid":8,"agentUser":"u","agentGroup":"g"})");
  ASSERT_TRUE(user.ok() && user->has_value());
  EXPECT_EQ((*user)->uid, 7u);
}

TEST(AgentUserGroupTest, ATaskRunsAsItsWorkspacesGroupElseItsOwnersElseTheDefault) {
  TempSqliteStore store("agent_user_group");
  const std::string workspace_group = R"({"agentUid":1,"agentGid":1,"agentUser":"w","agentGroup":"w"})";
  const std::string owner_group = R"({"agentUid":2,"agentGid":2,"agentUser":"o","agentGroup":"o"})";
  const api::TaskUser fallback{.uid = 3, .gid = 3, .user = "d", .group = "d"};
  Workspace grouped = *store->InsertWorkspace({.name = "grouped", .user_id = 1, .agent_user_group_json = workspace_group});
  Workspace plain = *store->InsertWorkspace({.name = "plain", .user_id = 1});
  api::User linked = *store->InsertUser({.username = "linked", .agent_user_group_json = owner_group});
  api::User unlinked = *store->InsertUser({.username = "unlinked"});
  auto uid = [&](int64_t workspace, int64_t owner, const std::optional<api::TaskUser>& default_user) -> int64_t {
    absl::StatusOr<std::optional<api::TaskUser>> user = TaskUserFor(*store, *store, workspace, owner, default_user);
    EXPECT_TRUE(user.ok()) << user.status();
    return user.ok() && user->has_value() ? static_cast<int64_t>((*user)->uid) : -1;
  };
  EXPECT_EQ(uid(grouped.id, linked.id, fallback), 1);
  EXPECT_EQ(uid(plain.id, linked.id, fallback), 2);
  EXPECT_EQ(uid(kUncategorizedWorkspace, linked.id, fallback), 2);
  EXPECT_EQ(uid(plain.id, unlinked.id, fallback), 3);
  EXPECT_EQ(uid(plain.id, unlinked.id, std::nullopt), -1) << "none: the agent's own user";
  EXPECT_EQ(uid(plain.id, 0, fallback), 3) << "no owner";
  EXPECT_EQ(TaskUserFor(*store, *store, 999, linked.id, fallback).status().code(), absl::StatusCode::kNotFound);

  UserPatch unlink;
  unlink.agent_user_group_json = "";
  ASSERT_TRUE(store->UpdateUser(linked.id, unlink).ok());
  EXPECT_EQ(store->GetUser(linked.id)->agent_user_group_json, "");
  EXPECT_EQ(uid(plain.id, linked.id, fallback), 3);
}

}  // namespace
}  // namespace det::master

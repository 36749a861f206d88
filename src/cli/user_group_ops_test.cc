#include "cli/user_group_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"

namespace det::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A master with RBAC on (unless rbac_ is false), users alice (2) and bob (3), and one group "team"
// (5) with alice in it; records every request after the login.
class UserGroupOpsTest : public RecordingAdminMasterTest {
 protected:
  FakeResponse Answer(const FakeRequest& r) override {
    if (r.target == "/api/v1/master") return {200, json{{"rbacEnabled", rbac_}}.dump()};
    if (r.target == "/api/v1/users/alice/by-username")
      return {200, R"({"user":{"id":2,"username":"alice"}})"};
    if (r.target == "/api/v1/users/bob/by-username")
      return {200, R"({"user":{"id":3,"username":"bob"}})"};
    if (r.method == "POST" && r.target == "/api/v1/groups") {
      json body = json::parse(r.body);
      json users = json::array();
      for (int64_t id : body["addUsers"])
        users.push_back({{"id", id}, {"username", id == 2 ? "alice" : "bob"}});
      return {200,
              json{{"group", {{"groupId", 5}, {"name", body["name"]}, {"users", users}}}}.dump()};
    }
    if (r.method == "POST" && r.target == "/api/v1/groups/search")
      return Search(json::parse(r.body));
    if (r.target == "/api/v1/groups/5") {
      json group = {{"groupId", 5}, {"name", "team"}, {"users", {kAlice}}};
      if (r.method == "PUT") {
        json body = json::parse(r.body);
        if (body.contains("name")) group["name"] = body["name"];
      }
      if (r.method == "DELETE") return {200, "{}"};
      return {200, json{{"group", group}}.dump()};
    }
    return {404, R"({"error":{"code":5,"error":"not found"}})"};
  }

  // Two groups, "team" (5) and "ops" (6); a name filter finds only "team".
  FakeResponse Search(const json& body) {
    json all = json::array({{{"group", {{"groupId", 5}, {"name", "team"}}}, {"numMembers", 1}},
                            {{"group", {{"groupId", 6}, {"name", "ops"}}}, {"numMembers", 0}}});
    if (body.contains("name")) {
      json found = body["name"] == "team" ? json::array({all[0]}) : json::array();
      return {200, json{{"groups", found}}.dump()};
    }
    const size_t offset = body.value("offset", 0), limit = body.value("limit", 0);
    json page = json::array();
    for (size_t i = offset; i < all.size() && (limit == 0 || page.size() < limit); ++i)
      page.push_back(all[i]);
    json pagination = {{"offset", offset},
                       {"limit", limit},
                       {"startIndex", offset},
                       {"endIndex", offset + page.size()},
                       {"total", all.size()}};
    return {200, json{{"groups", page}, {"pagination", pagination}}.dump()};
  }

  // The requests other than the RBAC check and user lookups: what the command changed or searched.
  std::vector<FakeRequest> GroupRequests() {
    return Sent([](const FakeRequest& r) { return r.target.rfind("/api/v1/groups", 0) == 0; });
  }

  const json kAlice =
      json::parse(R"({"id": 2, "username": "alice", "displayName": "", "admin": false,
      "active": true, "agentUserGroup": null, "modifiedAt": "2025-01-02T03:04:05Z"})");
  bool rbac_ = true;
};

TEST_F(UserGroupOpsTest, CreateSendsTheUsersIdsAndSaysWhoIsIn) {
  std::ostringstream out;
  ASSERT_TRUE(CreateGroup(*session_, "team", {"alice", "bob"}, out).ok());
  auto sent = GroupRequests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(json::parse(sent[0].body), json::parse(R"({"name": "team", "addUsers": [2, 3]})"));
  EXPECT_EQ(out.str(), "Created user group \"team\" (ID 5).\nMembers: alice, bob\n");
}

TEST_F(UserGroupOpsTest, UnknownUsersAreNamedAndNothingIsCreated) {
  std::ostringstream out;
  absl::StatusOr<int> r = CreateGroup(*session_, "team", {"alice", "carol", "dave"}, out);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsNotFound(r.status()));
  EXPECT_EQ(r.status().message(), "no users named \"carol\", \"dave\"");
  EXPECT_TRUE(GroupRequests().empty());
}

TEST_F(UserGroupOpsTest, AMasterWithoutRbacIsToldApartBeforeAnythingIsAsked) {
  rbac_ = false;
  std::ostringstream out;
  absl::StatusOr<int> r = ListGroups(*session_, ListGroupsArgs{}, out);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status()));
  EXPECT_THAT(r.status().message(), HasSubstr("security: {authz: {type: rbac}}"));
  EXPECT_TRUE(GroupRequests().empty());
  EXPECT_EQ(out.str(), "");
}

TEST_F(UserGroupOpsTest, ListPrintsUpstreamsColumnsAndReadsEveryPage) {
  std::ostringstream out;
  ListGroupsArgs args;
  args.pages.limit = 1;
  ASSERT_TRUE(ListGroups(*session_, args, out).ok());
  EXPECT_EQ(out.str(),
            " Groupid | Name | Nummembers\n"
            "---------+------+------------\n"
            "       5 | team |          1\n"
            "       6 | ops  |          0\n");
  auto sent = GroupRequests();
  ASSERT_EQ(sent.size(), 2u) << "two pages of one";
  EXPECT_EQ(json::parse(sent[0].body), json::parse(R"({"offset": 0, "limit": 1})"));
  EXPECT_EQ(json::parse(sent[1].body), json::parse(R"({"offset": 1, "limit": 1})"));

  std::ostringstream one;
  args.pages.all_pages = false;
  args.member = "alice";
  args.json = true;
  ASSERT_TRUE(ListGroups(*session_, args, one).ok());
  sent = GroupRequests();
  ASSERT_EQ(sent.size(), 3u) << "--pages 1: one request";
  EXPECT_EQ(json::parse(sent[2].body), json::parse(R"({"offset": 0, "limit": 1, "userId": 2})"));
  json printed = json::parse(one.str());
  ASSERT_EQ(printed["groups"].size(), 1u);
  EXPECT_EQ(printed["groups"][0]["group"]["name"], "team");
  EXPECT_EQ(printed["pagination"]["total"], 2);
}

TEST_F(UserGroupOpsTest, DescribeFindsTheGroupByNameAndTablesItsUsers) {
  std::ostringstream out;
  ASSERT_TRUE(DescribeGroup(*session_, "team", false, out).ok());
  auto sent = GroupRequests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(json::parse(sent[0].body), json::parse(R"({"name": "team", "offset": 0, "limit": 1})"));
  EXPECT_EQ(sent[1].method + " " + sent[1].target, "GET /api/v1/groups/5");
  EXPECT_EQ(
      out.str(),
      "User group \"team\" (ID 5), its users:\n"
      " Id | Username | Displayname | Admin | Active | Agentusergroup | Modifiedat\n"
      "----+----------+-------------+-------+--------+----------------+----------------------\n"
      "  2 | alice    |             | False | True   | N/A            | 2025-01-02T03:04:05Z\n");
  std::ostringstream as_json;
  ASSERT_TRUE(DescribeGroup(*session_, "team", true, as_json).ok());
  EXPECT_EQ(json::parse(as_json.str())["users"][0], kAlice);

  absl::StatusOr<int> missing = DescribeGroup(*session_, "nobody", false, out);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no user group named \"nobody\""));
}

TEST_F(UserGroupOpsTest, AddAndRemoveUsersPutTheirIds) {
  std::ostringstream added, removed;
  ASSERT_TRUE(ChangeGroupMembers(*session_, "team", "alice,bob", true, added).ok());
  ASSERT_TRUE(ChangeGroupMembers(*session_, "team", "bob", false, removed).ok());
  auto sent = GroupRequests();
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[1].method + " " + sent[1].target, "PUT /api/v1/groups/5");
  EXPECT_EQ(json::parse(sent[1].body), json::parse(R"({"groupId": 5, "addUsers": [2, 3]})"));
  EXPECT_EQ(json::parse(sent[3].body), json::parse(R"({"groupId": 5, "removeUsers": [3]})"));
  EXPECT_EQ(added.str(), "Added alice (ID 2), bob (ID 3) to user group \"team\" (ID 5).\n");
  EXPECT_EQ(removed.str(), "Removed bob (ID 3) from user group \"team\" (ID 5).\n");

  std::ostringstream out;
  absl::StatusOr<int> empty = ChangeGroupMembers(*session_, "team", ", ", true, out);
  EXPECT_TRUE(absl::IsInvalidArgument(empty.status()));
  absl::StatusOr<int> unknown = ChangeGroupMembers(*session_, "team", "zed", false, out);
  EXPECT_EQ(unknown.status().message(), "no user named \"zed\"");
  EXPECT_EQ(GroupRequests().size(), 5u) << "only the group lookup of the unknown user's call";
}

TEST_F(UserGroupOpsTest, RenameAndDelete) {
  std::ostringstream renamed, deleted;
  ASSERT_TRUE(RenameGroup(*session_, "team", "crew", renamed).ok());
  ASSERT_TRUE(DeleteGroup(*session_, "team", deleted).ok());
  auto sent = GroupRequests();
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(json::parse(sent[1].body), json::parse(R"({"groupId": 5, "name": "crew"})"));
  EXPECT_EQ(renamed.str(), "Renamed user group \"team\" (ID 5) to \"crew\".\n");
  EXPECT_EQ(sent[3].method + " " + sent[3].target, "DELETE /api/v1/groups/5");
  EXPECT_EQ(deleted.str(), "Deleted user group \"team\" (ID 5).\n");
}

}  // namespace
}  // namespace det::cli

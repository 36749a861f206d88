#include "cli/rbac_ops.h"

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

const char kViewer[] =
    R"({"roleId": 2, "name": "Viewer", "scopeTypeMask": {"cluster": true, "workspace": true},
  "permissions": [{"id": "PERMISSION_TYPE_VIEW_WORKSPACE", "name": "view workspace",
                   "scopeTypeMask": {"cluster": true, "workspace": true}}]})";
const char kAdmin[] =
    R"({"roleId": 1, "name": "ClusterAdmin", "scopeTypeMask": {"cluster": true, "workspace": false},
  "permissions": [{"id": "PERMISSION_TYPE_VIEW_WORKSPACE", "name": "view workspace",
                   "scopeTypeMask": {"cluster": true, "workspace": true}},
                  {"id": "PERMISSION_TYPE_ASSIGN_ROLES", "name": "assign roles",
                   "scopeTypeMask": {"cluster": true, "workspace": false}}]})";

// An RBAC master with roles ClusterAdmin (1) and Viewer (2), user alice (2), group "team" (5) and
// workspace "ws-a" (3); records the requests after the login.
class RbacOpsTest : public RecordingAdminMasterTest {
 protected:
  FakeResponse Answer(const FakeRequest& r) override {
    const std::string& t = r.target;
    if (t == "/api/v1/master") return {200, R"({"rbacEnabled": true})"};
    if (t == "/api/v1/users/alice/by-username")
      return {200, R"({"user":{"id":2,"username":"alice"}})"};
    if (t == "/api/v1/users/2") return {200, R"({"user":{"id":2,"username":"alice"}})"};
    if (t == "/api/v1/groups/5") return {200, R"({"group":{"groupId":5,"name":"team"}})"};
    if (t == "/api/v1/workspaces/3") return {200, R"({"workspace":{"id":3,"name":"ws-a"}})"};
    if (t.rfind("/api/v1/workspaces?", 0) == 0) {
      return {200, R"({"workspaces":[{"id":1,"name":"Uncategorized"},{"id":3,"name":"ws-a"}]})"};
    }
    if (t == "/api/v1/groups/search") {
      json found = json::parse(r.body)["name"] == "team"
                       ? json::parse(R"([{"group":{"groupId":5,"name":"team"}}])")
                       : json::array();
      return {200, json{{"groups", found}}.dump()};
    }
    if (t == "/api/v1/roles/search" || t == "/api/v1/roles/search/by-assignability") {
      json roles = json::array({json::parse(kViewer)});
      if (t == "/api/v1/roles/search" || !json::parse(r.body).contains("workspaceId")) {
        roles.insert(roles.begin(), json::parse(kAdmin));
      }
      return {200, json{{"roles", roles}}.dump()};
    }
    if (t == "/api/v1/permissions/summary") {
      return {200,
              json{{"roles", {json::parse(kAdmin), json::parse(kViewer)}},
                   {"assignments",
                    json::parse(R"([{"roleId": 2, "scopeWorkspaceIds": [3], "scopeCluster": false},
                                                        {"roleId": 1, "scopeWorkspaceIds": [], "scopeCluster": true}])")}}
                  .dump()};
    }
    if (t == "/api/v1/roles/search/by-user/2" || t == "/api/v1/roles/search/by-ids") {
      return {200, json{{"roles",
                         {{{"role", json::parse(kViewer)},
                           {"userRoleAssignments", {kDirect}},
                           {"groupRoleAssignments", {kThroughTeam}}}}}}
                       .dump()};
    }
    if (t == "/api/v1/roles/search/by-group/5") {
      return {
          200,
          json{{"roles", {json::parse(kViewer)}},
               {"assignments",
                json::parse(R"([{"roleId": 2, "scopeWorkspaceIds": [3], "scopeCluster": true}])")}}
              .dump()};
    }
    if (t == "/api/v1/roles/add-assignments" || t == "/api/v1/roles/remove-assignments")
      return {200, "{}"};
    return {404, R"({"error":{"code":5,"error":"not found"}})"};
  }

  std::vector<FakeRequest> SentTo(const std::string& target) {
    return Sent([&](const FakeRequest& r) { return r.target == target; });
  }

  // alice has Viewer cluster-wide directly, and in ws-a through group "team".
  const json kDirect = json::parse(R"({"userId": 2, "roleAssignment": {"scopeCluster": true}})");
  const json kThroughTeam = json::parse(
      R"({"groupId": 5, "roleAssignment": {"scopeWorkspaceId": 3, "scopeCluster": false}})");
};

TEST_F(RbacOpsTest, MyPermissionsListsEachScopesPermissionsOnce) {
  std::ostringstream out;
  ASSERT_TRUE(MyPermissions(*session_, false, out).ok());
  EXPECT_EQ(
      out.str(),
      "Permissions in workspace \"ws-a\" (ID 3):\n"
      " Id                             | Name           | Scopetypemask\n"
      "--------------------------------+----------------+--------------------------------------\n"
      " PERMISSION_TYPE_VIEW_WORKSPACE | view workspace | {'cluster': True, 'workspace': True}\n"
      "\n"
      "Cluster-wide permissions:\n"
      " Id                             | Name           | Scopetypemask\n"
      "--------------------------------+----------------+---------------------------------------\n"
      " PERMISSION_TYPE_VIEW_WORKSPACE | view workspace | {'cluster': True, 'workspace': True}\n"
      " PERMISSION_TYPE_ASSIGN_ROLES   | assign roles   | {'cluster': True, 'workspace': False}\n"
      "\n");
  std::ostringstream as_json;
  ASSERT_TRUE(MyPermissions(*session_, true, as_json).ok());
  EXPECT_EQ(json::parse(as_json.str())["assignments"][1]["roleId"], 1);
}

TEST_F(RbacOpsTest, ListRolesAsksForWorkspaceRolesWhenGlobalOnesAreLeftOut) {
  std::ostringstream all, some;
  ASSERT_TRUE(ListRoles(*session_, false, PageArgs{}, false, all).ok());
  ASSERT_TRUE(ListRoles(*session_, true, PageArgs{}, false, some).ok());
  auto sent = SentTo("/api/v1/roles/search/by-assignability");
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(json::parse(sent[0].body), json::parse(R"({"offset": 0, "limit": 200})"));
  EXPECT_EQ(json::parse(sent[1].body),
            json::parse(R"({"offset": 0, "limit": 200, "workspaceId": 1})"));
  EXPECT_THAT(all.str(), HasSubstr("Role \"ClusterAdmin\" (ID 1), its permissions:\n"));
  EXPECT_EQ(
      some.str(),
      "Role \"Viewer\" (ID 2), its permissions:\n"
      " Id                             | Name           | Scopetypemask\n"
      "--------------------------------+----------------+--------------------------------------\n"
      " PERMISSION_TYPE_VIEW_WORKSPACE | view workspace | {'cluster': True, 'workspace': True}\n"
      "\n");
}

TEST_F(RbacOpsTest, ListUsersRolesShowsDirectAndGroupAssignments) {
  std::ostringstream out;
  ASSERT_TRUE(ListUsersRoles(*session_, "alice", false, out).ok());
  EXPECT_EQ(out.str(),
            " Rolename | Roleid | Assigneddirectlytouser | Assignedtogroupname | Assignedtogroupid "
            "| Scopecluster |"
            " Scopeworkspacename | Scopeworkspaceid\n"
            "----------+--------+------------------------+---------------------+-------------------"
            "+--------------+"
            "--------------------+------------------\n"
            " Viewer   |      2 | True                   | N/A                 | N/A               "
            "| True         |"
            " N/A                | N/A\n"
            " Viewer   |      2 | False                  | team                | 5                 "
            "| False        |"
            " ws-a               | 3\n");
  absl::StatusOr<int> nobody = ListUsersRoles(*session_, "zed", false, out);
  EXPECT_EQ(nobody.status().message(), "no user named \"zed\"");
}

TEST_F(RbacOpsTest, ListGroupsRolesShowsWhereEachRoleIsGiven) {
  std::ostringstream out;
  ASSERT_TRUE(ListGroupsRoles(*session_, "team", false, out).ok());
  EXPECT_EQ(out.str(),
            "Role \"Viewer\" (ID 2) is assigned:\n"
            " Assignedglobally | Workspaceid | Workspacename\n"
            "------------------+-------------+---------------\n"
            " True             | N/A         | N/A\n"
            " False            | 3           | ws-a\n"
            "\n");
  absl::StatusOr<int> missing = ListGroupsRoles(*session_, "crew", false, out);
  EXPECT_THAT(missing.status().message(), HasSubstr("no user group named \"crew\""));
}

TEST_F(RbacOpsTest, DescribeRoleShowsPermissionsGroupsAndUsers) {
  std::ostringstream out;
  ASSERT_TRUE(DescribeRole(*session_, "Viewer", false, out).ok());
  auto sent = SentTo("/api/v1/roles/search/by-ids");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(json::parse(sent[0].body), json::parse(R"({"roleIds": [2]})"));
  EXPECT_THAT(out.str(), HasSubstr("Role \"Viewer\" (ID 2), its permissions:\n"));
  EXPECT_THAT(out.str(),
              HasSubstr("User groups with this role:\n"
                        " Groupid | Groupname | Workspaceid | Workspacename | Assignedglobally\n"
                        "---------+-----------+-------------+---------------+------------------\n"
                        "       5 | team      |           3 | ws-a          | False\n"));
  EXPECT_THAT(out.str(),
              HasSubstr("Users with this role directly:\n"
                        " Userid | Username | Workspaceid | Workspacename | Assignedglobally\n"
                        "--------+----------+-------------+---------------+------------------\n"
                        "      2 | alice    | N/A         | N/A           | True\n"));
  absl::StatusOr<int> unknown = DescribeRole(*session_, "Janitor", false, out);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "no role named \"Janitor\" (the roles are: ClusterAdmin, Viewer)");
}

TEST_F(RbacOpsTest, AssignAndUnassignSendUpstreamsBodies) {
  std::ostringstream out;
  RoleAssignmentArgs to_group{.role = "Viewer", .workspace = "ws-a", .group = "team"};
  ASSERT_TRUE(ChangeRoleAssignment(*session_, to_group, true, out).ok());
  RoleAssignmentArgs to_user{.role = "ClusterAdmin", .user = "alice"};
  ASSERT_TRUE(ChangeRoleAssignment(*session_, to_user, false, out).ok());
  auto added = SentTo("/api/v1/roles/add-assignments");
  auto removed = SentTo("/api/v1/roles/remove-assignments");
  ASSERT_EQ(added.size(), 1u);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(json::parse(added[0].body),
            json::parse(R"({"userRoleAssignments": [], "groupRoleAssignments": [
      {"groupId": 5, "roleAssignment": {"role": {"roleId": 2}, "scopeWorkspaceId": 3}}]})"));
  EXPECT_EQ(json::parse(removed[0].body),
            json::parse(R"({"groupRoleAssignments": [], "userRoleAssignments": [
      {"userId": 2, "roleAssignment": {"role": {"roleId": 1}, "scopeWorkspaceId": null}}]})"));
  EXPECT_EQ(out.str(),
            "Assigned role \"Viewer\" (ID 2) to user group \"team\" (ID 5) in workspace \"ws-a\".\n"
            "Removed role \"ClusterAdmin\" (ID 1) from user \"alice\" (ID 2) cluster-wide.\n");
}

TEST_F(RbacOpsTest, BadAssignmentsNameWhatIsWrongAndChangeNothing) {
  std::ostringstream out;
  absl::StatusOr<int> both = ChangeRoleAssignment(
      *session_, RoleAssignmentArgs{.role = "Viewer", .user = "alice", .group = "team"}, true, out);
  EXPECT_TRUE(absl::IsInvalidArgument(both.status()));
  absl::StatusOr<int> neither =
      ChangeRoleAssignment(*session_, RoleAssignmentArgs{.role = "Viewer"}, true, out);
  EXPECT_TRUE(absl::IsInvalidArgument(neither.status()));
  EXPECT_TRUE(SentTo("/api/v1/master").empty()) << "refused before asking the master";

  absl::StatusOr<int> workspace = ChangeRoleAssignment(
      *session_, RoleAssignmentArgs{.role = "Viewer", .workspace = "ws-z", .user = "alice"}, true,
      out);
  EXPECT_THAT(workspace.status().message(), HasSubstr("no workspace named \"ws-z\""));
  absl::StatusOr<int> group = ChangeRoleAssignment(
      *session_, RoleAssignmentArgs{.role = "Viewer", .group = "crew"}, true, out);
  EXPECT_THAT(group.status().message(), HasSubstr("no user group named \"crew\""));
  absl::StatusOr<int> role = ChangeRoleAssignment(
      *session_, RoleAssignmentArgs{.role = "Janitor", .user = "alice"}, false, out);
  EXPECT_THAT(role.status().message(), HasSubstr("no role named \"Janitor\""));
  EXPECT_TRUE(SentTo("/api/v1/roles/add-assignments").empty());
  EXPECT_TRUE(SentTo("/api/v1/roles/remove-assignments").empty());
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace det::cli

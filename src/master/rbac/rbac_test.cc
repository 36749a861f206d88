// The permission table, the built-in roles (checked against upstream's role table written out id by
// id, not through the helpers that build them) and the permission rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "master/rbac/grants.h"
#include "master/rbac/permissions.h"
#include "master/rbac/roles.h"

namespace det::master::rbac {
namespace {

std::set<int32_t> Ids(const Role& role) {
  std::set<int32_t> out;
  for (Permission p : role.permissions) out.insert(static_cast<int32_t>(p));
  return out;
}

TEST(PermissionsTest, SixtyPermissionsWithUpstreamsIdsNamesAndScopes) {
  EXPECT_EQ(AllPermissions().size(), 60u);
  std::set<int32_t> ids;
  for (const PermissionInfo& p : AllPermissions()) ids.insert(static_cast<int32_t>(p.id));
  EXPECT_EQ(ids.size(), 60u) << "no id twice";
  EXPECT_EQ(std::string(FindPermission(2001)->wire_name), "PERMISSION_TYPE_CREATE_EXPERIMENT");
  EXPECT_EQ(std::string(FindPermission(91001)->wire_name), "PERMISSION_TYPE_ADMINISTRATE_USER");
  EXPECT_TRUE(FindPermission(8101)->global_only);
  EXPECT_FALSE(FindPermission(11003)->global_only);
  EXPECT_TRUE(FindPermission(12006)->global_only);
  EXPECT_FALSE(FindPermission(4001).has_value());
  EXPECT_EQ(ShortName(Permission::kSetWorkspaceDefaultResourcePool), "set_workspace_default_resource_pool");
  std::set<int32_t> global;
  for (const PermissionInfo& p : AllPermissions()) {
    if (p.global_only) global.insert(static_cast<int32_t>(p.id));
  }
  EXPECT_EQ(global, (std::set<int32_t>{8001, 8002, 8003, 8004, 8005, 8006, 8007, 8101, 10001, 11001, 11002, 11004,
                                       12001, 12002, 12003, 12004, 12005, 12006, 91001, 91002, 93001, 94001, 96001}));
}

TEST(RolesTest, TheTenBuiltInRolesGrantUpstreamsPermissions) {
  const std::set<int32_t> editor = {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 4002, 5001, 5002, 5003,
                                    7001, 7002, 7003, 7004, 7005, 9001, 9002, 9003, 9004, 11003, 11006, 11007,
                                    97001, 97002};
  auto without = [](std::set<int32_t> s, std::initializer_list<int32_t> ids) {
    for (int32_t id : ids) s.erase(id);
    return s;
  };
  const std::map<std::string, std::set<int32_t>> expected = {
      {"WorkspaceAdmin", {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 4002, 4003, 4004, 4006, 4007, 5001,
                          5002, 5003, 5004, 6002, 7001, 7002, 7003, 7004, 7005, 7006, 7007, 9001, 9002, 9003, 9004,
                          11003, 11005, 11006, 11007, 97001, 97002}},
      {"WorkspaceCreator", {94001, 11006, 11007}},
      {"Viewer", {2002, 2003, 3002, 4002, 5002, 7001, 9001, 11003, 11006, 11007, 97002}},
      {"Editor", editor},
      {"ModelRegistryViewer", {7001, 11006, 11007}},
      {"EditorRestricted", without(editor, {3001, 3003})},
      {"GenAIUser", {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 94001, 4002, 5001, 5002, 5003, 5004,
                     7001, 7002, 7003, 7004, 7005, 9001, 9002, 9003, 9004, 11003, 11006, 11007}},
      {"EditorProjectRestricted", without(editor, {5001, 5003})},
      {"TokenCreator", {12002, 12003, 12006}},
  };
  ASSERT_EQ(BuiltInRoles().size(), 10u);
  for (int32_t id = 1; id <= 10; ++id) ASSERT_NE(FindRole(id), nullptr) << id;
  EXPECT_EQ(FindRole(1)->name, "ClusterAdmin");
  EXPECT_EQ(FindRole(1)->permissions.size(), 60u);
  for (const auto& [name, ids] : expected) {
    const Role* role = FindRoleByName(name);
    ASSERT_NE(role, nullptr) << name;
    EXPECT_EQ(Ids(*role), ids) << name;
  }
  EXPECT_EQ(FindRoleByName("WorkspaceAdmin")->id, 2);
  EXPECT_EQ(FindRoleByName("TokenCreator")->id, 10);
  EXPECT_EQ(FindRole(11), nullptr);
  EXPECT_EQ(FindRoleByName("Owner"), nullptr);
}

TEST(RolesTest, RoleJsonIsUpstreamsRole) {
  nlohmann::json viewer = RoleJson(*FindRoleByName("Viewer"));
  EXPECT_EQ(viewer["roleId"], 4);
  EXPECT_EQ(viewer["name"], "Viewer");
  EXPECT_EQ(viewer["scopeTypeMask"], (nlohmann::json{{"cluster", true}, {"workspace", true}}));
  ASSERT_EQ(viewer["permissions"].size(), 11u);
  EXPECT_EQ(viewer["permissions"][0],
            (nlohmann::json{{"id", "PERMISSION_TYPE_VIEW_EXPERIMENT_ARTIFACTS"},
                            {"name", "view_experiment_artifacts"},
                            {"scopeTypeMask", {{"cluster", true}, {"workspace", true}}}}));
  EXPECT_EQ(RoleJson(*FindRole(1))["scopeTypeMask"]["workspace"], false) << "ClusterAdmin is cluster-only";
  EXPECT_EQ(RoleJson(*FindRoleByName("TokenCreator"))["scopeTypeMask"]["workspace"], false);
}

TEST(GrantsTest, AWorkspaceAssignmentGrantsInThatWorkspaceOnly) {
  const std::vector<Assignment> a = {{.group_id = 7, .role_id = 4, .workspace_id = 2}};
  EXPECT_TRUE(Grants(a, Permission::kViewExperimentMetadata, 2));
  EXPECT_FALSE(Grants(a, Permission::kViewExperimentMetadata, 3));
  EXPECT_FALSE(Grants(a, Permission::kViewExperimentMetadata, std::nullopt)) << "not cluster-wide";
  EXPECT_FALSE(Grants(a, Permission::kCreateExperiment, 2)) << "a viewer creates nothing";
}

TEST(GrantsTest, AClusterAssignmentGrantsEverywhere) {
  const std::vector<Assignment> a = {{.group_id = 7, .role_id = 5}};
  EXPECT_TRUE(Grants(a, Permission::kCreateExperiment, 2));
  EXPECT_TRUE(Grants(a, Permission::kCreateExperiment, std::nullopt));
  EXPECT_FALSE(Grants(a, Permission::kDeleteWorkspace, 2)) << "an editor does not delete workspaces";
  EXPECT_FALSE(Grants({}, Permission::kViewWorkspace, 1)) << "no assignment, nothing";
  EXPECT_FALSE(Grants({{.group_id = 1, .role_id = 99}}, Permission::kViewWorkspace, 1)) << "unknown role";
}

TEST(GrantsTest, ReachListsTheWorkspacesOrEverywhere) {
  Reach r = ReachOf({{.group_id = 1, .role_id = 4, .workspace_id = 2}, {.group_id = 2, .role_id = 6, .workspace_id = 3},
                     {.group_id = 3, .role_id = 5, .workspace_id = 4}},
                    Permission::kViewExperimentMetadata);
  EXPECT_FALSE(r.everywhere);
  EXPECT_EQ(r.workspaces, (std::set<int64_t>{2, 4})) << "ModelRegistryViewer does not view experiments";
  EXPECT_TRUE(r.Covers(4));
  EXPECT_FALSE(r.Covers(3));
  EXPECT_TRUE(ReachOf({{.group_id = 1, .role_id = 1}}, Permission::kViewExperimentMetadata).Covers(12345));
}

}  // namespace
}  // namespace det::master::rbac

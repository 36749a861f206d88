// The rbac rule over a real (SQLite) store: roles reach users through their groups, in a workspace or
// cluster-wide; denials name the missing permission; the one-time seeding keeps everyone working.
#include "master/rbac/rbac_authz.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"
#include "master/rbac/roles.h"

namespace det::master::rbac {
namespace {

class RbacAuthzTest : public ::testing::Test {
 protected:
  int64_t AddUser(const std::string& name, bool admin = false) {
    api::User u;
    u.username = name;
    u.admin = admin;
    absl::StatusOr<api::User> created = store_->InsertUser(u);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->id : 0;
  }
  Principal Who(int64_t id, const std::string& name) { return Principal{.user_id = id, .username = name}; }

  TempSqliteStore store_{"det_rbac_authz"};
  RbacAuthz authz_{*store_};
};

TEST_F(RbacAuthzTest, AGroupsRoleInAWorkspaceReachesItsMembersThere) {
  const int64_t eve = AddUser("eve");
  absl::StatusOr<Group> team = store_->InsertGroup("team", {eve});
  ASSERT_TRUE(team.ok());
  const OwnedResource in_ws3{.kind = "experiment", .id = "9", .owner_id = 1, .workspace_id = 3};
  const OwnedResource in_ws4{.kind = "experiment", .id = "10", .owner_id = 1, .workspace_id = 4};
  absl::Status denied = authz_.Check(Who(eve, "eve"), Permission::kViewExperimentMetadata, in_ws3);
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "user eve lacks PERMISSION_TYPE_VIEW_EXPERIMENT_METADATA in workspace 3");

  ASSERT_TRUE(store_->AddRoleAssignments({{.group_id = team->id, .role_id = kEditorRole, .workspace_id = 3}}).ok());
  EXPECT_TRUE(authz_.Check(Who(eve, "eve"), Permission::kUpdateExperiment, in_ws3).ok()) << "not the owner, yet an editor";
  EXPECT_FALSE(authz_.Check(Who(eve, "eve"), Permission::kUpdateExperiment, in_ws4).ok());
  EXPECT_FALSE(authz_.Check(Who(eve, "eve"), Permission::kDeleteWorkspace, in_ws3).ok());

  ASSERT_TRUE(store_->UpdateGroup(team->id, std::nullopt, {}, {eve}).ok());
  EXPECT_FALSE(authz_.Check(Who(eve, "eve"), Permission::kUpdateExperiment, in_ws3).ok()) << "at once";
}

TEST_F(RbacAuthzTest, ClusterActionsNeedAClusterWideGrantAndAdminsHaveNoneOfTheirOwn) {
  const int64_t root = AddUser("root", /*admin=*/true);
  absl::Status denied = authz_.CheckCluster(Who(root, "root"), Permission::kUpdateAgents, "disable agents");
  EXPECT_EQ(denied.message(),
            "user root lacks PERMISSION_TYPE_UPDATE_AGENTS (cluster-wide), needed to disable agents");
  absl::StatusOr<int64_t> personal = store_->PersonalGroupOf(root);
  ASSERT_TRUE(store_->AddRoleAssignments({{.group_id = *personal, .role_id = kWorkspaceAdminRole, .workspace_id = 2}})
                  .ok());
  EXPECT_FALSE(authz_.CheckCluster(Who(root, "root"), Permission::kAssignRoles, "assign roles").ok())
      << "a workspace grant is not a cluster one";
  ASSERT_TRUE(store_->AddRoleAssignments({{.group_id = *personal, .role_id = kClusterAdminRole}}).ok());
  EXPECT_TRUE(authz_.CheckCluster(Who(root, "root"), Permission::kUpdateAgents, "disable agents").ok());
  EXPECT_TRUE(authz_.IsRbac());
}

TEST_F(RbacAuthzTest, ATaskTokenReadsAsItsOwnerAndChangesNothing) {
  const int64_t eve = AddUser("eve");
  ASSERT_TRUE(store_->AddRoleAssignments({{.group_id = *store_->PersonalGroupOf(eve), .role_id = kClusterAdminRole}})
                  .ok());
  Principal task{.user_id = eve, .username = "eve", .allocation_id = "t.1"};
  const OwnedResource e{.kind = "experiment", .id = "9", .owner_id = eve, .workspace_id = 1};
  EXPECT_TRUE(authz_.Check(task, Permission::kViewExperimentArtifacts, e).ok());
  EXPECT_EQ(authz_.Check(task, Permission::kUpdateExperiment, e).message(),
            "tasks cannot change experiments with an allocation token; use a user's token");
}

TEST_F(RbacAuthzTest, SeedingGivesAdminsClusterAdminAndOthersEditorOnceOnly) {
  const int64_t eve = AddUser("eve");
  ASSERT_TRUE(SeedRbacOnce(*store_, *store_).ok());
  EXPECT_TRUE(authz_.CheckCluster(Who(1, "admin"), Permission::kAdministrateUser, "create users").ok());
  const OwnedResource uncategorized{.kind = "experiment", .id = "1", .owner_id = 1, .workspace_id = 1};
  EXPECT_TRUE(authz_.Check(Who(eve, "eve"), Permission::kCreateExperiment, uncategorized).ok());
  EXPECT_FALSE(authz_.CheckCluster(Who(eve, "eve"), Permission::kAdministrateUser, "create users").ok());

  ASSERT_TRUE(store_->RemoveRoleAssignments({{.group_id = *store_->PersonalGroupOf(eve), .role_id = kEditorRole,
                                              .workspace_id = 1}})
                  .ok());
  const int64_t later = AddUser("later");
  ASSERT_TRUE(SeedRbacOnce(*store_, *store_).ok());
  EXPECT_FALSE(authz_.Check(Who(eve, "eve"), Permission::kCreateExperiment, uncategorized).ok())
      << "a removed role stays removed";
  EXPECT_TRUE(store_->ListUserRoleAssignments(later)->empty()) << "users added later get what admins give them";
}

}  // namespace
}  // namespace det::master::rbac

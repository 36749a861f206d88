#include "master/task/authz.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

using rbac::Permission;

TEST(BasicAuthzTest, OwnersAndAdminsChangeEveryoneReadsTasksChangeNothing) {
  BasicAuthz authz;
  OwnedResource command{.kind = "command", .id = "abc", .owner_id = 2, .workspace_id = 1};
  Principal owner{.user_id = 2, .username = "determined"};
  Principal other{.user_id = 3, .username = "eve"};
  Principal admin{.user_id = 1, .username = "admin", .admin = true};
  Principal task{.user_id = 2, .username = "determined", .allocation_id = "abc.1"};
  EXPECT_TRUE(authz.Check(other, Permission::kViewNsc, command).ok());
  EXPECT_TRUE(authz.Check(task, Permission::kViewNsc, command).ok());
  EXPECT_TRUE(authz.Check(owner, Permission::kUpdateNsc, command).ok());
  EXPECT_TRUE(authz.Check(admin, Permission::kUpdateNsc, command).ok());
  absl::Status denied = authz.Check(other, Permission::kUpdateNsc, command);
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "user eve is not the owner of command abc and is not an admin");
  EXPECT_EQ(authz.Check(task, Permission::kUpdateNsc, command).message(),
            "tasks cannot change commands with an allocation token; use a user's token");
}

TEST(BasicAuthzTest, AnyUserCreatesButNoTask) {
  BasicAuthz authz;
  OwnedResource workspace{.kind = "experiment", .id = "", .owner_id = 0, .workspace_id = 2};
  EXPECT_TRUE(authz.Check(Principal{.user_id = 3, .username = "eve"}, Permission::kCreateExperiment, workspace).ok());
  EXPECT_TRUE(absl::IsPermissionDenied(
      authz.Check(Principal{.user_id = 3, .allocation_id = "a.1"}, Permission::kCreateExperiment, workspace)));
}

TEST(BasicAuthzTest, ManagingTheClusterIsForAdmins) {
  BasicAuthz authz;
  Principal eve{.user_id = 3, .username = "eve"};
  Principal admin{.user_id = 1, .username = "admin", .admin = true};
  absl::Status denied = authz.CheckCluster(eve, Permission::kUpdateAgents, "disable agents");
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "only admins can disable agents; user eve is not an admin");
  EXPECT_TRUE(authz.CheckCluster(admin, Permission::kUpdateAgents, "disable agents").ok());
  EXPECT_TRUE(authz.CheckCluster(eve, Permission::kViewMasterLogs, "view the master's logs").ok());
  EXPECT_TRUE(authz.CheckCluster(eve, Permission::kCreateWorkspace, "create workspaces").ok());
  EXPECT_FALSE(authz.CheckCluster(eve, Permission::kViewOtherToken, "view other users' tokens").ok());
  EXPECT_FALSE(authz.IsRbac());
}

TEST(RequireUserTokenTest, AnAllocationTokenActsForNoUser) {
  Principal user{.user_id = 2, .username = "determined"};
  Principal task{.user_id = 2, .username = "determined", .allocation_id = "abc.1"};
  EXPECT_TRUE(RequireUserToken(user, "launch work").ok());
  absl::Status denied = RequireUserToken(task, "launch work");
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "tasks cannot launch work with an allocation token; use a user's token");
}

TEST(IsViewPermissionTest, ViewsOnly) {
  EXPECT_TRUE(IsViewPermission(Permission::kViewExperimentArtifacts));
  EXPECT_TRUE(IsViewPermission(Permission::kViewMasterLogs));
  EXPECT_FALSE(IsViewPermission(Permission::kUpdateExperiment));
  EXPECT_FALSE(IsViewPermission(Permission::kCreateNsc));
}

}  // namespace
}  // namespace det::master

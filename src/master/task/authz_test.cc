#include "master/task/authz.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

TEST(BasicAuthzTest, OwnersAndAdminsChangeEveryoneReadsTasksChangeNothing) {
  BasicAuthz authz;
  OwnedResource command{.kind = "command", .id = "abc", .owner_id = 2};
  Principal owner{.user_id = 2, .username = "determined"};
  Principal other{.user_id = 3, .username = "eve"};
  Principal admin{.user_id = 1, .username = "admin", .admin = true};
  Principal task{.user_id = 2, .username = "determined", .allocation_id = "abc.1"};
  EXPECT_TRUE(authz.CanView(other, command).ok());
  EXPECT_TRUE(authz.CanChange(owner, command).ok());
  EXPECT_TRUE(authz.CanChange(admin, command).ok());
  absl::Status denied = authz.CanChange(other, command);
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "user eve is not the owner of command abc and is not an admin");
  EXPECT_EQ(authz.CanChange(task, command).message(),
            "tasks cannot change commands with an allocation token; use a user's token");
}

TEST(RequireUserTokenTest, AnAllocationTokenActsForNoUser) {
  Principal user{.user_id = 2, .username = "determined"};
  Principal task{.user_id = 2, .username = "determined", .allocation_id = "abc.1"};
  EXPECT_TRUE(RequireUserToken(user, "launch work").ok());
  absl::Status denied = RequireUserToken(task, "launch work");
  EXPECT_TRUE(absl::IsPermissionDenied(denied));
  EXPECT_EQ(denied.message(), "tasks cannot launch work with an allocation token; use a user's token");
}

}  // namespace
}  // namespace det::master

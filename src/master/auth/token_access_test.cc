#include "master/auth/token_access.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master {
namespace {

using ::testing::HasSubstr;

Principal User(int64_t id, const std::string& name, bool admin) {
  return Principal{.user_id = id, .username = name, .admin = admin, .allocation_id = "", .token = "t"};
}

TEST(TokenAccessTest, EveryoneMayUseTheirOwnTokens) {
  Principal bob = User(5, "bob", false);
  for (TokenAction a : {TokenAction::kCreate, TokenAction::kView, TokenAction::kUpdate}) {
    EXPECT_TRUE(CheckTokenAccess(bob, a, 5).ok());
  }
  EXPECT_FALSE(MayViewEveryonesTokens(bob));
}

TEST(TokenAccessTest, OnlyAdminsMayUseOtherUsersTokens) {
  Principal bob = User(5, "bob", false);
  absl::Status create = CheckTokenAccess(bob, TokenAction::kCreate, 6);
  EXPECT_EQ(create.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(create.message(), HasSubstr("only an admin may create access tokens for another user; user bob is not an admin"));
  EXPECT_THAT(CheckTokenAccess(bob, TokenAction::kView, 6).message(), HasSubstr("view the access tokens of"));
  EXPECT_THAT(CheckTokenAccess(bob, TokenAction::kUpdate, 6).message(), HasSubstr("edit or revoke"));

  Principal admin = User(1, "admin", true);
  for (TokenAction a : {TokenAction::kCreate, TokenAction::kView, TokenAction::kUpdate}) {
    EXPECT_TRUE(CheckTokenAccess(admin, a, 6).ok());
  }
  EXPECT_TRUE(MayViewEveryonesTokens(admin));
}

TEST(TokenAccessTest, AnAllocationTokenMayDoNothing) {
  Principal task{.user_id = 0, .username = "", .admin = false, .allocation_id = "alloc-1", .token = "t"};
  for (TokenAction a : {TokenAction::kCreate, TokenAction::kView, TokenAction::kUpdate}) {
    absl::Status s = CheckTokenAccess(task, a, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(s.message(), HasSubstr("allocation token"));
  }
  EXPECT_FALSE(MayViewEveryonesTokens(task));
}

}  // namespace
}  // namespace det::master

#include "master/auth/token_authenticator.h"

#include <gtest/gtest.h>

#include "common/crypto.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

HttpRequest WithAllocationToken(const std::string& token) {
  return HttpRequest{.method = "GET", .path = "/api/v1/me", .headers = {{"x-allocation-token", "Bearer " + token}}};
}

TEST(TokenAuthenticatorTest, AnAllocationTokenSpeaksForItsTasksOwnerWithoutTheAdminFlag) {
  TempSqliteStore store("det_token_authenticator");
  absl::StatusOr<api::User> owner = store->InsertUser({.username = "ann", .admin = true, .active = true});
  ASSERT_TRUE(owner.ok()) << owner.status();
  ASSERT_TRUE(store->InsertTask({.task_id = "t1", .type = TaskType::kCommand, .owner_id = owner->id}, "").ok());
  ASSERT_TRUE(store->InsertAllocation({.allocation_id = "t1.1", .task_id = "t1", .token_hash = Sha256Hex("tok")}).ok());
  TokenAuthenticator authenticator(*store);

  for (int attempt = 0; attempt < 2; ++attempt) {  // read, then kept
    absl::StatusOr<Principal> who = authenticator.Authenticate(WithAllocationToken("tok"));
    ASSERT_TRUE(who.ok()) << who.status();
    EXPECT_EQ(who->allocation_id, "t1.1");
    EXPECT_EQ(who->user_id, owner->id);
    EXPECT_EQ(who->username, "ann");
    EXPECT_FALSE(who->admin) << "a task's token never does more than read as its owner";
  }
  EXPECT_EQ(authenticator.Authenticate(WithAllocationToken("other")).status().code(),
            absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace det::master

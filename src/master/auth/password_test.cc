#include "master/auth/password.h"

#include <gtest/gtest.h>

#include "common/crypto.h"

namespace det::master {
namespace {

TEST(PasswordTest, AcceptsHashedAndPlainForms) {
  api::User user;
  user.password_hash = *BcryptHash(ClientSidePasswordHash("s3cret"));
  EXPECT_TRUE(PasswordMatches(user, "s3cret", /*is_hashed=*/false));
  EXPECT_TRUE(PasswordMatches(user, ClientSidePasswordHash("s3cret"), /*is_hashed=*/true));
  EXPECT_FALSE(PasswordMatches(user, "wrong", false));
  EXPECT_FALSE(PasswordMatches(user, "s3cret", /*is_hashed=*/true));  // plain text sent as if hashed
  EXPECT_FALSE(PasswordMatches(user, "", false));
}

TEST(PasswordTest, BlankPasswordOnlyForUsersWithoutOne) {
  api::User blank;
  EXPECT_TRUE(PasswordMatches(blank, "", false));
  EXPECT_TRUE(PasswordMatches(blank, "", true));
  EXPECT_FALSE(PasswordMatches(blank, "anything", false));
}

}  // namespace
}  // namespace det::master

// AccessTokenStore on every backend (SQLite and PostgreSQL), beside the login sessions it shares
// user_sessions with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "master/db/store_test_backends.h"

namespace det::master {
namespace {

using std::chrono::hours;

template <class Backend>
class AccessTokenStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = backend_.Open();
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
    now_ = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
  }

  int64_t Add(const std::string& hash, int64_t user_id, WallTime expiry, const std::string& description = "") {
    auto id = store_->AddAccessToken(NewAccessToken{
        .token_hash = hash, .user_id = user_id, .created_at = now_, .expiry = expiry, .description = description});
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : 0;
  }

  std::vector<int64_t> Ids(const AccessTokenFilter& filter) {
    auto tokens = store_->ListAccessTokens(filter);
    EXPECT_TRUE(tokens.ok()) << tokens.status();
    std::vector<int64_t> ids;
    if (tokens.ok()) {
      for (const AccessTokenInfo& t : *tokens) ids.push_back(t.id);
    }
    return ids;
  }

  Backend backend_;
  std::unique_ptr<SqlStore> store_;
  WallTime now_;
};

struct TokenStoreBackendNames {
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};
using TokenStoreBackends = ::testing::Types<SqliteTestBackend, PostgresTestBackend>;
TYPED_TEST_SUITE(AccessTokenStoreTest, TokenStoreBackends, TokenStoreBackendNames);

TYPED_TEST(AccessTokenStoreTest, ATokenAuthenticatesUntilRevokedAndKeepsWhatItWasGiven) {
  int64_t id = this->Add("hash-a", 2, this->now_ + hours(24), "ci robot");
  ASSERT_GT(id, 0);
  EXPECT_EQ(*this->store_->LookupSession("hash-a", this->now_), 2);
  auto info = this->store_->GetAccessToken(id);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->user_id, 2);
  EXPECT_EQ(info->type, TokenType::kAccessToken);
  EXPECT_EQ(info->created_at, this->now_);
  EXPECT_EQ(info->expiry, this->now_ + hours(24));
  EXPECT_EQ(info->description, "ci robot");
  EXPECT_FALSE(info->revoked_at.has_value());

  auto revoked = this->store_->UpdateAccessToken(id, AccessTokenPatch{.description = std::nullopt, .revoke = true},
                                                 this->now_ + hours(1));
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(revoked->revoked_at, std::optional<WallTime>(this->now_ + hours(1)));
  EXPECT_EQ(revoked->description, "ci robot");
  EXPECT_EQ(this->store_->LookupSession("hash-a", this->now_ + hours(1)).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(AccessTokenStoreTest, AnExpiredTokenNoLongerAuthenticates) {
  this->Add("hash-b", 2, this->now_ + std::chrono::seconds(2));
  EXPECT_TRUE(this->store_->LookupSession("hash-b", this->now_).ok());
  EXPECT_EQ(this->store_->LookupSession("hash-b", this->now_ + std::chrono::seconds(3)).status().code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(AccessTokenStoreTest, AnInactiveTokenCannotBeUpdated) {
  int64_t expired = this->Add("old", 2, this->now_ - hours(1));
  int64_t live = this->Add("live", 2, this->now_ + hours(1));
  auto edit = this->store_->UpdateAccessToken(expired, AccessTokenPatch{.description = "x", .revoke = false}, this->now_);
  EXPECT_EQ(edit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(edit.status().message(), ::testing::HasSubstr("expired"));
  ASSERT_TRUE(this->store_->UpdateAccessToken(live, AccessTokenPatch{.description = std::nullopt, .revoke = true},
                                              this->now_).ok());
  auto again = this->store_->UpdateAccessToken(live, AccessTokenPatch{.description = "y", .revoke = false}, this->now_);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), ::testing::HasSubstr("access token " + std::to_string(live) + " is revoked"));
  EXPECT_EQ(this->store_->GetAccessToken(live)->description, "") << "a refused update changes nothing";
  EXPECT_EQ(this->store_->UpdateAccessToken(9999, {}, this->now_).status().code(), absl::StatusCode::kNotFound);
}

TYPED_TEST(AccessTokenStoreTest, DescriptionEditsLeaveTheTokenActive) {
  int64_t id = this->Add("h", 1, this->now_ + hours(1), "first");
  auto edited = this->store_->UpdateAccessToken(id, AccessTokenPatch{.description = "second", .revoke = false}, this->now_);
  ASSERT_TRUE(edited.ok()) << edited.status();
  EXPECT_EQ(edited->description, "second");
  EXPECT_TRUE(edited->ActiveAt(this->now_));
  EXPECT_TRUE(this->store_->LookupSession("h", this->now_).ok());
}

TYPED_TEST(AccessTokenStoreTest, LoginSessionsAreNotAccessTokens) {
  ASSERT_TRUE(this->store_->AddSession("session", 1, this->now_ + hours(1)).ok());
  int64_t token = this->Add("token", 1, this->now_ + hours(1));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.now = this->now_}), ::testing::ElementsAre(token));
  // Logging out or ending a user's sessions leaves their access tokens.
  ASSERT_TRUE(this->store_->DeleteSession("token").ok());
  ASSERT_TRUE(this->store_->DeleteUserSessions(1).ok());
  EXPECT_FALSE(this->store_->LookupSession("session", this->now_).ok());
  EXPECT_EQ(*this->store_->LookupSession("token", this->now_), 1);
  // A session's row id is not an access token's.
  for (int64_t id = 1; id < token; ++id) {
    EXPECT_EQ(this->store_->GetAccessToken(id).status().code(), absl::StatusCode::kNotFound) << id;
  }
}

TYPED_TEST(AccessTokenStoreTest, ListsFilterAndSort) {
  int64_t a = this->Add("a", 1, this->now_ + hours(3), "zeta");
  int64_t b = this->Add("b", 2, this->now_ + hours(1), "alpha");
  int64_t c = this->Add("c", 2, this->now_ - hours(1), "expired");
  int64_t d = this->Add("d", 2, this->now_ + hours(2), "revoked");
  ASSERT_TRUE(this->store_->UpdateAccessToken(d, AccessTokenPatch{.description = std::nullopt, .revoke = true},
                                              this->now_).ok());
  EXPECT_THAT(this->Ids(AccessTokenFilter{.now = this->now_}), ::testing::ElementsAre(a, b));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.show_inactive = true, .now = this->now_}), ::testing::ElementsAre(a, b, c, d));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.user_id = 2, .show_inactive = true, .now = this->now_}),
              ::testing::ElementsAre(b, c, d));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.ids = {a, c}, .show_inactive = true, .now = this->now_}),
              ::testing::ElementsAre(a, c));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.ids = {a, c}, .now = this->now_}), ::testing::ElementsAre(a));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.show_inactive = true, .now = this->now_, .sort = AccessTokenSort::kExpiry}),
              ::testing::ElementsAre(c, b, d, a));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.show_inactive = true,
                                          .now = this->now_,
                                          .sort = AccessTokenSort::kDescription,
                                          .descending = true}),
              ::testing::ElementsAre(a, d, c, b));
  EXPECT_THAT(this->Ids(AccessTokenFilter{.show_inactive = true, .now = this->now_, .descending = true}),
              ::testing::ElementsAre(d, c, b, a));
}

TYPED_TEST(AccessTokenStoreTest, TokensSurviveReopeningAndIdsAreNeverGivenTwice) {
  int64_t first = this->Add("first", 2, this->now_ + hours(1));
  ASSERT_TRUE(this->store_->AddSession("s", 2, this->now_ + hours(1)).ok());
  ASSERT_TRUE(this->store_->DeleteSession("s").ok());  // the highest id is gone
  this->store_.reset();
  auto again = this->backend_.Open();
  ASSERT_TRUE(again.ok()) << again.status();
  this->store_ = std::move(*again);
  EXPECT_EQ(*this->store_->LookupSession("first", this->now_), 2);
  int64_t second = this->Add("second", 2, this->now_ + hours(1));
  EXPECT_GT(second, first + 1);
}

}  // namespace
}  // namespace det::master

#include "master/handlers/user_requests.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/crypto.h"
#include "master/auth/password.h"

namespace det::master {
namespace {

using nlohmann::json;

TEST(UserRequestsTest, NewUserHashesPlainAndPreHashedPasswordsAlike) {
  auto plain = ParseNewUser(
      json{{"user", {{"username", "alice"}, {"displayName", "A"}}}, {"password", "pw"}});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->username, "alice");
  EXPECT_EQ(plain->display_name, "A");
  EXPECT_TRUE(plain->active);  // default when not given
  EXPECT_FALSE(plain->admin);
  ASSERT_TRUE(plain->password_hash.has_value());
  EXPECT_TRUE(PasswordMatches(*plain, "pw", /*is_hashed=*/false));

  auto hashed = ParseNewUser(json{{"user", {{"username", "bob"}, {"admin", true}}},
                                  {"password", ClientSidePasswordHash("pw")},
                                  {"isHashed", true}});
  ASSERT_TRUE(hashed.ok()) << hashed.status();
  EXPECT_TRUE(hashed->admin);
  EXPECT_TRUE(PasswordMatches(*hashed, "pw", false));

  auto blank = ParseNewUser(json{{"user", {{"username", "carol"}}}});
  ASSERT_TRUE(blank.ok());
  EXPECT_FALSE(blank->password_hash.has_value());
}

TEST(UserRequestsTest, NewUserNeedsAValidUsername) {
  EXPECT_EQ(ParseNewUser(json::object()).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseNewUser(json{{"user", {{"username", ""}}}}).status().message(),
            "username must not be empty");
  EXPECT_FALSE(ParseNewUser(json{{"user", {{"username", "a b"}}}}).ok());
  EXPECT_FALSE(ParseNewUser(json{{"user", {{"username", "x"}, {"admin", "yes"}}}}).ok());
}

TEST(UserRequestsTest, PatchParsesOnlyGivenFields) {
  auto p = ParseUserPatch(json{{"active", false}, {"display_name", "D"}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->active, std::optional<bool>(false));
  EXPECT_EQ(p->display_name, "D");
  EXPECT_FALSE(p->admin.has_value());
  EXPECT_FALSE(p->username.has_value());
  EXPECT_FALSE(p->password_hash.has_value());
  auto pw = ParseUserPatch(json{{"password", "new"}, {"isHashed", false}});
  ASSERT_TRUE(pw.ok());
  ASSERT_TRUE(pw->password_hash.has_value() && pw->password_hash->has_value());
  api::User u;
  u.password_hash = **pw->password_hash;
  EXPECT_TRUE(PasswordMatches(u, "new", false));
}

TEST(UserRequestsTest, AnAgentUserGroupIsCheckedAndKeptAsGiven) {
  json group = {{"agentUid", 1000}, {"agentGid", 100}, {"agentUser", "ml"}, {"agentGroup", "users"}};
  auto linked = ParseUserPatch(json{{"agentUserGroup", group}});
  ASSERT_TRUE(linked.ok()) << linked.status();
  ASSERT_TRUE(linked->agent_user_group_json.has_value());
  EXPECT_EQ(json::parse(*linked->agent_user_group_json), group);
  EXPECT_EQ(ParseUserPatch(json{{"agentUserGroup", json::object()}})->agent_user_group_json, "") << "{}: none";
  EXPECT_FALSE(ParseUserPatch(json{{"agentUserGroup", nullptr}})->agent_user_group_json.has_value()) << "null: unset";
  EXPECT_FALSE(ParseUserPatch(json{{"display_name", "D"}})->agent_user_group_json.has_value());
  EXPECT_EQ(ParseUserPatch(json{{"agentUserGroup", {{"agentUid", 1000}}}}).status().message(),
            "agentUserGroup.agentGid is required");
  auto created = ParseNewUser(json{{"user", {{"username", "ana"}, {"agentUserGroup", group}}}});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(json::parse(created->agent_user_group_json), group);
  EXPECT_EQ(ParseNewUser(json{{"user", {{"username", "bo"}}}})->agent_user_group_json, "");
}

TEST(UserRequestsTest, PermissionRules) {
  Principal admin{
      .user_id = 1, .username = "admin", .admin = true, .allocation_id = "", .token = ""};
  Principal bob{.user_id = 3, .username = "bob", .admin = false, .allocation_id = "", .token = ""};
  UserPatch display;
  display.display_name = "B";
  UserPatch activate;
  activate.active = true;
  EXPECT_TRUE(CheckCanPatchUser(admin, 3, activate).ok());
  EXPECT_TRUE(CheckCanPatchUser(bob, 3, display).ok());  // own display name
  EXPECT_EQ(CheckCanPatchUser(bob, 3, activate).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CheckCanPatchUser(bob, 1, display).code(), absl::StatusCode::kPermissionDenied);
  UserPatch link;
  link.agent_user_group_json = R"({"agentUid": 0, "agentGid": 0, "agentUser": "root", "agentGroup": "root"})";
  EXPECT_TRUE(CheckCanPatchUser(admin, 3, link).ok());
  EXPECT_EQ(CheckCanPatchUser(bob, 3, link).code(), absl::StatusCode::kPermissionDenied) << "not even their own";
  EXPECT_TRUE(CheckAdmin(admin, "create users").ok());
  absl::Status st = CheckAdmin(bob, "create users");
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(st.message(), "only admins can create users; user bob is not an admin");
}

TEST(UserRequestsTest, ListQuery) {
  HttpRequest r;
  r.query = {{"name", "al"},
             {"active", "true"},
             {"sortBy", "SORT_BY_USER_NAME"},
             {"orderBy", "ORDER_BY_DESC"},
             {"offset", "-1"},
             {"limit", "3"}};
  auto q = ParseUserListQuery(r);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->filter.name_contains, "al");
  EXPECT_EQ(q->filter.active, std::optional<bool>(true));
  EXPECT_FALSE(q->filter.admin.has_value());
  EXPECT_EQ(q->filter.sort, UserSort::kUsername);
  EXPECT_TRUE(q->filter.descending);
  EXPECT_EQ(q->offset, -1);
  EXPECT_EQ(q->filter.limit, 3);
  r.query = {{"admin", "perhaps"}};
  EXPECT_FALSE(ParseUserListQuery(r).ok());
}

}  // namespace
}  // namespace det::master

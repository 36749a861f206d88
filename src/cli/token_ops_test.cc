#include "cli/token_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"
#include "cli/token_cache.h"

namespace det::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const char kInfo[] = R"({"id": 4, "userId": 2, "description": "ci", "createdAt": "2025-01-02T03:04:05.000000Z",
  "expiry": "2025-02-01T03:04:05.000000Z", "revoked": false, "tokenType": "TOKEN_TYPE_ACCESS_TOKEN"})";

// A master with login, user lookup by name and the token routes, recording what it was sent.
class TokenOpsTest : public RecordingAdminMasterTest {
 protected:
  FakeResponse Answer(const FakeRequest& r) override {
    if (r.target == "/api/v1/users/admin/by-username") return {200, R"({"user":{"id":1,"username":"admin"}})"};
    if (r.target == "/api/v1/users/bob/by-username") return {200, R"({"user":{"id":2,"username":"bob"}})"};
    if (r.method == "POST" && r.target == "/api/v1/tokens") return {200, R"({"token":"secret","tokenId":4})"};
    if (r.method == "GET" && r.target.rfind("/api/v1/tokens", 0) == 0) {
      return {200, json{{"tokenInfo", {json::parse(kInfo)}}, {"pagination", json::object()}}.dump()};
    }
    if (r.method == "PATCH" && r.target == "/api/v1/tokens/4") {
      json info = json::parse(kInfo);
      json body = json::parse(r.body);
      if (body["setRevoked"] == true) info["revoked"] = true;
      if (body["description"].is_string()) info["description"] = body["description"];
      return {200, json{{"tokenInfo", info}}.dump()};
    }
    if (r.target == "/api/v1/me") {
      if (r.headers.count("authorization") && r.headers.at("authorization") == "Bearer good") {
        return {200, R"({"user":{"id":2,"username":"bob"}})"};
      }
      return {401, R"({"error":{"code":16,"error":"invalid credentials"}})"};
    }
    return {404, R"({"error":{"code":5,"error":"not found"}})"};
  }

  FakeRequest Last(const std::string& method) {
    std::vector<FakeRequest> sent = Sent([&](const FakeRequest& r) {
      return r.method == method && r.target.find("/tokens") != std::string::npos;
    });
    return sent.empty() ? FakeRequest{} : sent.back();
  }
};

TEST_F(TokenOpsTest, CreateSendsUpstreamsLifespanAndPrintsTheToken) {
  std::ostringstream out;
  CreateTokenArgs args{.username = "bob", .expiration_days = 2, .description = "ci", .json = false};
  ASSERT_TRUE(CreateToken(*session_, args, out).ok());
  EXPECT_EQ(out.str(), "TokenID: 4\nAccess-Token: secret\n");
  EXPECT_EQ(json::parse(Last("POST").body), json::parse(R"({"userId": 2, "lifespan": "48h", "description": "ci"})"));

  std::ostringstream own;
  ASSERT_TRUE(CreateToken(*session_, CreateTokenArgs{.expiration_days = -1}, own).ok());
  EXPECT_EQ(json::parse(Last("POST").body), json::parse(R"({"userId": 1, "lifespan": "-1"})")) << "the logged-in user";

  std::ostringstream as_json;
  ASSERT_TRUE(CreateToken(*session_, CreateTokenArgs{.json = true}, as_json).ok());
  EXPECT_EQ(json::parse(Last("POST").body), json::parse(R"({"userId": 1})")) << "no lifespan: the master's default";
  EXPECT_EQ(json::parse(as_json.str()), json::parse(R"({"token":"secret","tokenId":4})"));
}

TEST_F(TokenOpsTest, ListPrintsUpstreamsColumns) {
  std::ostringstream out;
  ASSERT_TRUE(ListTokens(*session_, "bob", true, false, out).ok());
  EXPECT_EQ(Last("GET").target, "/api/v1/tokens?showInactive=true&username=bob");
  EXPECT_EQ(out.str(),
            " ID | User ID | Description | Created At                  | Expires At                  | Revoked | Token Type\n"
            "----+---------+-------------+-----------------------------+-----------------------------+---------+--------------\n"
            "  4 |       2 | ci          | 2025-01-02T03:04:05.000000Z | 2025-02-01T03:04:05.000000Z | False   | ACCESS_TOKEN\n");
  std::ostringstream as_json;
  ASSERT_TRUE(ListTokens(*session_, "", false, true, as_json).ok());
  EXPECT_EQ(Last("GET").target, "/api/v1/tokens?showInactive=false");
  EXPECT_EQ(json::parse(as_json.str()), json::array({json::parse(kInfo)}));
}

TEST_F(TokenOpsTest, DescribeAsksForEachId) {
  std::ostringstream out;
  ASSERT_TRUE(DescribeTokens(*session_, {4, 9}, false, out).ok());
  EXPECT_EQ(Last("GET").target, "/api/v1/tokens?tokenIds=4&tokenIds=9");
  EXPECT_THAT(out.str(), HasSubstr("ACCESS_TOKEN"));
}

TEST_F(TokenOpsTest, RevokeAndEditPatchTheToken) {
  std::ostringstream revoked;
  ASSERT_TRUE(RevokeToken(*session_, 4, revoked).ok());
  EXPECT_EQ(json::parse(Last("PATCH").body), json::parse(R"({"tokenId": 4, "description": null, "setRevoked": true})"));
  EXPECT_THAT(revoked.str(), HasSubstr("\"revoked\": true"));
  EXPECT_THAT(revoked.str(), HasSubstr("Successfully revoked token 4.\n"));

  std::ostringstream edited;
  ASSERT_TRUE(EditToken(*session_, 4, std::string("nightly"), edited).ok());
  EXPECT_EQ(json::parse(Last("PATCH").body),
            json::parse(R"({"tokenId": 4, "description": "nightly", "setRevoked": false})"));
  EXPECT_THAT(edited.str(), HasSubstr("\"description\": \"nightly\""));
  EXPECT_THAT(edited.str(), HasSubstr("Successfully updated token with ID: 4.\n"));
}

TEST_F(TokenOpsTest, LoginChecksTheTokenAndCachesIt) {
  std::ostringstream out;
  absl::StatusOr<int> bad = LoginWithToken(*session_, "bad", out);
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(TokenCache::Load(dir_ / "auth.json")->Get(server_->url()).has_value()) << "a refused token is not kept";

  ASSERT_TRUE(LoginWithToken(*session_, "good", out).ok());
  EXPECT_EQ(out.str(), "Authenticated as bob.\n");
  EXPECT_EQ(session_->username(), "bob");
  auto cached = TokenCache::Load(dir_ / "auth.json")->Get(server_->url());
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->username, "bob");
  EXPECT_EQ(cached->token, "good");
}

}  // namespace
}  // namespace det::cli

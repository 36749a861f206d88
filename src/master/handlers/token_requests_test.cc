#include "master/handlers/token_requests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

HttpRequest WithQuery(std::multimap<std::string, std::string> query) {
  HttpRequest r;
  r.method = "GET";
  r.path = "/api/v1/tokens";
  r.query = std::move(query);
  return r;
}

TEST(TokenRequestsTest, CreateTakesUpstreamsFields) {
  // What upstream's `det token create` sends (bindings.v1PostAccessTokenRequest.to_json(True)).
  auto c = ParseTokenCreate(json::parse(R"({"userId": 3, "lifespan": "48h", "description": "ci"})"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->user_id, 3);
  EXPECT_EQ(c->lifespan, "48h");
  EXPECT_EQ(c->description, "ci");
  auto nulls = ParseTokenCreate(json::parse(R"({"userId": 3, "lifespan": null, "description": null})"));
  ASSERT_TRUE(nulls.ok()) << nulls.status();
  EXPECT_EQ(nulls->lifespan, "");
  EXPECT_THAT(ParseTokenCreate(json::parse("{}")).status().message(), HasSubstr("userId is required"));
  EXPECT_THAT(ParseTokenCreate(json::parse(R"({"userId": 0})")).status().message(), HasSubstr("userId: must be"));
  EXPECT_THAT(ParseTokenCreate(json::parse(R"({"userId": 1, "lifespan": 5})")).status().message(),
              HasSubstr("lifespan"));
}

TEST(TokenRequestsTest, ListQueryReadsEveryParameter) {
  auto q = ParseTokenListQuery(WithQuery({{"tokenIds", "4"},
                                          {"tokenIds", "7"},
                                          {"username", "bob"},
                                          {"showInactive", "true"},
                                          {"sortBy", "SORT_BY_EXPIRY"},
                                          {"orderBy", "ORDER_BY_DESC"},
                                          {"offset", "1"},
                                          {"limit", "2"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(q->token_ids, ElementsAre(4, 7));
  EXPECT_EQ(q->username, "bob");
  EXPECT_TRUE(q->show_inactive);
  EXPECT_EQ(q->sort, AccessTokenSort::kExpiry);
  EXPECT_TRUE(q->descending);
  EXPECT_EQ(q->offset, 1);
  EXPECT_EQ(q->limit, 2);
  auto defaults = ParseTokenListQuery(WithQuery({}));
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(defaults->show_inactive);
  EXPECT_EQ(defaults->sort, AccessTokenSort::kId);
  EXPECT_EQ(ParseTokenListQuery(WithQuery({{"sortBy", "6"}}))->sort, AccessTokenSort::kDescription);
}

TEST(TokenRequestsTest, ListQueryRefusesWhatItCannotRead) {
  EXPECT_THAT(ParseTokenListQuery(WithQuery({{"tokenIds", "x"}})).status().message(), HasSubstr("tokenIds: \"x\""));
  EXPECT_THAT(ParseTokenListQuery(WithQuery({{"sortBy", "SORT_BY_NAME"}})).status().message(),
              HasSubstr("SORT_BY_DESCRIPTION"));
  EXPECT_THAT(ParseTokenListQuery(WithQuery({{"limit", "-1"}})).status().message(), HasSubstr("limit: must be >= 0"));
}

TEST(TokenRequestsTest, PatchAsUpstreamsCliSendsIt) {
  // `det token revoke 5`: tokenId (a string there), description null, setRevoked true.
  auto revoke = ParseTokenPatch(json::parse(R"({"tokenId": "5", "description": null, "setRevoked": true})"));
  ASSERT_TRUE(revoke.ok()) << revoke.status();
  EXPECT_TRUE(revoke->revoke);
  EXPECT_FALSE(revoke->description.has_value());
  auto edit = ParseTokenPatch(json::parse(R"({"tokenId": 5, "description": "new", "setRevoked": false})"));
  ASSERT_TRUE(edit.ok()) << edit.status();
  EXPECT_FALSE(edit->revoke);
  EXPECT_EQ(edit->description, std::optional<std::string>("new"));
  EXPECT_THAT(ParseTokenPatch(json::parse(R"({"setRevoked": "yes"})")).status().message(), HasSubstr("setRevoked"));
}

TEST(TokenRequestsTest, TokenInfoIsUpstreamsV1TokenInfo) {
  AccessTokenInfo t;
  t.id = 9;
  t.user_id = 2;
  t.created_at = FromUnixMicros(1700000000000000);
  t.expiry = FromUnixMicros(1700086400000000);
  t.revoked_at = FromUnixMicros(1700000001000000);
  t.description = "nightly";
  json j = TokenInfoJson(t);
  EXPECT_EQ(j, json::parse(R"({"id": 9, "userId": 2, "expiry": "2023-11-15T22:13:20.000000Z",
                               "createdAt": "2023-11-14T22:13:20.000000Z", "tokenType": "TOKEN_TYPE_ACCESS_TOKEN",
                               "revoked": true, "description": "nightly"})"))
      << j.dump();
}

}  // namespace
}  // namespace det::master

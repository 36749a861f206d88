#include "client/rest_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::client {
namespace {

TEST(RestClientTest, EncodesQueryValues) {
  EXPECT_EQ(UrlEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
  EXPECT_EQ(UrlEncode("safe-._~09AZ"), "safe-._~09AZ");
}

TEST(RestClientTest, UnreachableMasterIsUnavailable) {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  RestClient client("127.0.0.1:1");
  auto r = client.Get("/api/v1/master");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("http://127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace det::client

#include "agent/master_url.h"

#include <gtest/gtest.h>

namespace det::agent {
namespace {

TEST(MasterUrlTest, ParsesHttpUrl) {
  absl::StatusOr<MasterUrl> url = ParseMasterUrl("http://127.0.0.1:9090/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 9090);
  EXPECT_EQ(url->HttpUrl(), "http://127.0.0.1:9090");
}

TEST(MasterUrlTest, BareHostPortAndDefaultPort) {
  EXPECT_EQ(ParseMasterUrl("master:8081")->HttpUrl(), "http://master:8081");
  EXPECT_EQ(ParseMasterUrl("http://master")->port, 8080);
}

TEST(MasterUrlTest, HttpsAndWss) {
  absl::StatusOr<MasterUrl> url = ParseMasterUrl("https://m:9443");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->HttpUrl(), "https://m:9443");
  EXPECT_EQ(ParseMasterUrl("https://m")->port, 8443);
  EXPECT_EQ(ParseMasterUrl("wss://m:1")->HttpUrl(), "https://m:1");
  EXPECT_EQ(ParseMasterUrl("ws://m:1")->HttpUrl(), "http://m:1");
}

TEST(MasterUrlTest, Ipv6) {
  absl::StatusOr<MasterUrl> url = ParseMasterUrl("http://[::1]:8080");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->HttpUrl(), "http://[::1]:8080");
}

TEST(MasterUrlTest, RejectsBadInput) {
  EXPECT_FALSE(ParseMasterUrl("ftp://m:8080").ok());
  EXPECT_FALSE(ParseMasterUrl("http://m:99999").ok());
  EXPECT_FALSE(ParseMasterUrl("http://m:8080/api").ok());
  EXPECT_FALSE(ParseMasterUrl("http://:8080").ok());
}

}  // namespace
}  // namespace det::agent

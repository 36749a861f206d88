#include "common/time_util.h"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(TimeUtilTest, FormatsAndParsesRfc3339) {
  WallTime t = FromUnixMicros(1700000000123456);
  EXPECT_EQ(FormatRfc3339(t), "2023-11-14T22:13:20.123456Z");
  auto back = ParseRfc3339("2023-11-14T22:13:20.123456Z");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ToUnixMicros(*back), 1700000000123456);
  EXPECT_FALSE(ParseRfc3339("yesterday").ok());
}

}  // namespace
TEST(TimeUtilTest, ParsesGoDurations) {
  EXPECT_EQ(*ParseDuration("30s"), std::chrono::seconds(30));
  EXPECT_EQ(*ParseDuration("5m"), std::chrono::minutes(5));
  EXPECT_EQ(*ParseDuration("1h30m"), std::chrono::minutes(90));
  EXPECT_EQ(*ParseDuration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(*ParseDuration("1.5h"), std::chrono::minutes(90));
  for (const char* bad : {"", "30", "5 m", "m", "3x", "-1s"}) {
    absl::StatusOr<std::chrono::milliseconds> d = ParseDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find("is not a duration"), std::string::npos);
  }
}

}  // namespace det

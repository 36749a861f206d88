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
}  // namespace det

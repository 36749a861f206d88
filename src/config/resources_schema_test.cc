#include "config/resources_schema.h"

#include <gtest/gtest.h>

namespace det::config {
namespace {

TEST(IsSizeStringTest, AcceptsUpstreamShapes) {
  for (const char* s : {"1", "100", "4G", "4g", "4GB", "4Gb", "4GiB", "4gib", "512 MiB", "1.5G",
                        ".5G", "10 k", "10K", "7b", "7B", "3 ", "0.25 TiB", "2p", "2PB"}) {
    EXPECT_TRUE(IsSizeString(s)) << s;
  }
}

TEST(IsSizeStringTest, RefusesOthers) {
  for (const char* s : {"", " ", "G", "1.", "1..5", "1.5.5", "4Gi", "4 GB ", "4  GB", "4X", "4GBB",
                        "-4G", "4 iB", "four", "4Gi B", "1e3"}) {
    EXPECT_FALSE(IsSizeString(s)) << s;
  }
}

TEST(ResourcesSchemaTest, SizesInBytesAsDockerReadsThem) {
  EXPECT_EQ(SizeInBytes(4294967296), 4294967296);
  EXPECT_EQ(SizeInBytes("4G"), 4294967296);
  EXPECT_EQ(SizeInBytes("512 MiB"), 536870912);
  EXPECT_EQ(SizeInBytes("1.5G"), 1610612736);
  EXPECT_EQ(SizeInBytes("100"), 100);
  EXPECT_EQ(SizeInBytes("2kb"), 2048);
  EXPECT_EQ(SizeInBytes("lots"), std::nullopt);
  EXPECT_EQ(SizeInBytes("4X"), std::nullopt);
  EXPECT_EQ(SizeInBytes(-1), std::nullopt);
}

}  // namespace
}  // namespace det::config

#include "common/base64.h"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(Base64Test, RoundTrip) {
  EXPECT_EQ(Base64Encode("hello"), "aGVsbG8=");
  EXPECT_EQ(*Base64Decode("aGVsbG8="), "hello");
  EXPECT_FALSE(Base64Decode("***").ok());
}

}  // namespace
}  // namespace det

#include "common/random_id.h"

#include <gtest/gtest.h>

#include <regex>

namespace det {
namespace {

TEST(RandomIdTest, UuidIsV4AndUnique) {
  std::string a = NewUuid(), b = NewUuid();
  EXPECT_TRUE(std::regex_match(a, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << a;
  EXPECT_NE(a, b);
  EXPECT_EQ(RandomHex(16).size(), 32u);
}

}  // namespace
}  // namespace det

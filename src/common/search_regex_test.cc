#include "common/search_regex.h"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(SearchRegexTest, MatchesAnywhereInTheLine) {
  absl::StatusOr<std::regex> re = CompileSearchRegex("loss=[0-9]+\\.5");
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_TRUE(SearchRegexMatches(*re, "step 3 loss=12.5 acc=0.1"));
  EXPECT_FALSE(SearchRegexMatches(*re, "step 3 loss=12.4"));
  absl::StatusOr<std::regex> anchored = CompileSearchRegex("^step");
  ASSERT_TRUE(anchored.ok());
  EXPECT_TRUE(SearchRegexMatches(*anchored, "step 1"));
  EXPECT_FALSE(SearchRegexMatches(*anchored, "a step 1"));
}

TEST(SearchRegexTest, ABadPatternIsAnErrorNamingIt) {
  absl::StatusOr<std::regex> re = CompileSearchRegex("loss=(");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(re.status().message().find("\"loss=(\" is not a valid regular expression"), std::string::npos)
      << re.status();
}

}  // namespace
}  // namespace det

#include "master/workspace_rules.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

TEST(WorkspaceRulesTest, NamesAreOneToEightyCharactersAndNotBlank) {
  EXPECT_TRUE(CheckWorkspaceOrProjectName("vision", "name").ok());
  EXPECT_TRUE(CheckWorkspaceOrProjectName(std::string(80, 'a'), "name").ok());
  absl::Status blank = CheckWorkspaceOrProjectName("  ", "name");
  EXPECT_EQ(blank.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(blank.message(), "name: a name is required (1 to 80 characters)");
  EXPECT_EQ(CheckWorkspaceOrProjectName(std::string(81, 'a'), "name").code(), absl::StatusCode::kInvalidArgument);
}

TEST(WorkspaceRulesTest, AGivenKeyIsOneToFiveLettersOrDigitsUpperCased) {
  EXPECT_EQ(*ProjectKey("ab1"), "AB1");
  EXPECT_EQ(*ProjectKey("Z9Z9Z"), "Z9Z9Z");
  for (const char* bad : {"", "abcdef", "a-b", "é"}) {
    EXPECT_EQ(ProjectKey(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(ProjectKey("a b").status().message(), "key: 1 to 5 letters or digits, got \"a b\"");
}

TEST(WorkspaceRulesTest, AGeneratedKeyStartsWithTheNamesFirstLettersOrDigits) {
  auto x = [] { return 'x'; };
  EXPECT_EQ(GeneratedProjectKey("my project", x), "MYPXX");
  EXPECT_EQ(GeneratedProjectKey("a-1", x), "A1XXX");
  EXPECT_EQ(GeneratedProjectKey("---", x), "XXXXX");
}

}  // namespace
}  // namespace det::master

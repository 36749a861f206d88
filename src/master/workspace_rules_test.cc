#include "master/workspace_rules.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"

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

TEST(WorkspaceRulesTest, AProjectIsCreatedOnlyWhereItsNameAndKeyAreFree) {
  TempSqliteStore store("workspace_rules");
  const auto x = [] { return 'x'; };
  Project p{.name = "abc one", .workspace_id = 1, .user_id = 2};
  absl::StatusOr<Project> first = CreateProjectChecked(*store, p, "", x);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->key, "ABCXX");

  // The same generated key again: drawn anew while taken, then refused.
  p.name = "abc two";
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().code(), absl::StatusCode::kAlreadyExists);
  char next = 'a';
  absl::StatusOr<Project> drawn = CreateProjectChecked(*store, p, "", [&] { return next++; });
  ASSERT_TRUE(drawn.ok()) << drawn.status();
  EXPECT_EQ(drawn->key, "ABCAB");

  p.name = "ABC ONE";
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().message(),
            "workspace Uncategorized already has a project named \"ABC ONE\"");
  p.name = "keyed";
  EXPECT_EQ(CreateProjectChecked(*store, p, "abcxx", x).status().message(),
            "key ABCXX is another project's; choose another");
  EXPECT_EQ(CreateProjectChecked(*store, p, "k-1", x).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CreateProjectChecked(*store, p, "k1", x)->key, "K1");
  p.workspace_id = 9;
  EXPECT_EQ(CreateProjectChecked(*store, p, "", x).status().message(), "workspace 9 not found");
}

}  // namespace
}  // namespace det::master

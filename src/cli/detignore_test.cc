#include "cli/detignore.h"

#include <gtest/gtest.h>

namespace det::cli {
namespace {

TEST(DetIgnoreTest, BareNamesMatchAtAnyDepthAndBelow) {
  DetIgnore d({"data"});
  EXPECT_TRUE(d.Matches("data"));
  EXPECT_TRUE(d.Matches("a/b/data"));
  EXPECT_TRUE(d.Matches("data/file.csv"));
  EXPECT_FALSE(d.Matches("database"));
  EXPECT_FALSE(d.Matches("mydata"));
}

TEST(DetIgnoreTest, Globs) {
  DetIgnore d({"*.ckpt", "log?.txt", "[ab]x"});
  EXPECT_TRUE(d.Matches("model.ckpt"));
  EXPECT_TRUE(d.Matches("sub/model.ckpt"));
  EXPECT_FALSE(d.Matches("model.ckpt2"));
  EXPECT_TRUE(d.Matches("log1.txt"));
  EXPECT_FALSE(d.Matches("log10.txt"));
  EXPECT_TRUE(d.Matches("ax"));
  EXPECT_TRUE(d.Matches("bx"));
  EXPECT_FALSE(d.Matches("cx"));
}

TEST(DetIgnoreTest, TrailingSlashMeansDirectory) {
  DetIgnore d({"build/"});
  EXPECT_FALSE(d.Ignores("build", /*is_dir=*/false));
  EXPECT_TRUE(d.Ignores("build", /*is_dir=*/true));
  EXPECT_TRUE(d.Ignores("x/build", /*is_dir=*/true));
  EXPECT_TRUE(d.Matches("build/out.o"));
}

TEST(DetIgnoreTest, AnchoredPatterns) {
  DetIgnore d({"/top.txt", "docs/*.md"});
  EXPECT_TRUE(d.Matches("top.txt"));
  EXPECT_FALSE(d.Matches("sub/top.txt"));
  EXPECT_TRUE(d.Matches("docs/a.md"));
  EXPECT_FALSE(d.Matches("x/docs/a.md"));
  EXPECT_FALSE(d.Matches("docs/sub/a.md"));
}

TEST(DetIgnoreTest, DoubleStar) {
  DetIgnore d({"**/cache", "logs/**", "a/**/z"});
  EXPECT_TRUE(d.Matches("cache"));
  EXPECT_TRUE(d.Matches("p/q/cache"));
  EXPECT_TRUE(d.Matches("logs/x/y"));
  EXPECT_TRUE(d.Matches("a/z"));
  EXPECT_TRUE(d.Matches("a/b/c/z"));
  EXPECT_FALSE(d.Matches("b/z"));
}

TEST(DetIgnoreTest, NegationCommentsAndBlankLines) {
  DetIgnore d({"# a comment", "", "*.log", "!keep.log", "  "});
  EXPECT_TRUE(d.Matches("x.log"));
  EXPECT_FALSE(d.Matches("keep.log"));
  EXPECT_FALSE(d.Matches("# a comment"));
}

TEST(DetIgnoreTest, DefaultsSkipCachesAndVcs) {
  DetIgnore d(DefaultDetIgnorePatterns());
  EXPECT_TRUE(d.Ignores("__pycache__", true));
  EXPECT_TRUE(d.Ignores("pkg/__pycache__", true));
  EXPECT_TRUE(d.Ignores("mod.pyc", false));
  EXPECT_TRUE(d.Ignores(".git", true));
  EXPECT_TRUE(d.Ignores("shared_fs", true));
  EXPECT_FALSE(d.Ignores("sub/shared_fs", true));
  EXPECT_TRUE(d.Ignores("terraform.tfstate.backup", false));
  EXPECT_FALSE(d.Ignores("train.py", false));
  EXPECT_FALSE(d.Ignores(".gitignore", false));
}

TEST(DetIgnoreTest, RegexTranslation) {
  bool include = false;
  EXPECT_EQ(DetIgnorePatternToRegex("foo", &include), "^(?:.+/)?foo(?:/.*)?$");
  EXPECT_TRUE(include);
  EXPECT_EQ(DetIgnorePatternToRegex("!/a/b", &include), "^a/b(?:/.*)?$");
  EXPECT_FALSE(include);
  EXPECT_EQ(DetIgnorePatternToRegex("#x", &include), "");
  EXPECT_EQ(DetIgnorePatternToRegex("/", &include), "");
}

}  // namespace
}  // namespace det::cli

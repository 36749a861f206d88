#include "cli/context_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;

class ContextDirTest : public ::testing::Test {
 protected:

  void Write(const std::string& rel, const std::string& content) {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    ASSERT_TRUE(WriteFile(p, content).ok());
  }

  static std::map<std::string, const ContextFile*> ByPath(const ContextResult& r) {
    std::map<std::string, const ContextFile*> out;
    for (const ContextFile& f : r.files) out[f.path] = &f;
    return out;
  }

  TestTempDir tmp_{"det_cli_ctx"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(ContextDirTest, ListsFilesAndDirectoriesRelativeToRoot) {
  Write("ctx/train.py", "print('hi')\n");
  Write("ctx/pkg/util.py", "x = 1\n");
  Write("ctx/pkg/data/x.csv", "a,b\n");
  absl::StatusOr<ContextResult> r = ReadContext(dir_ / "ctx", {});
  ASSERT_TRUE(r.ok()) << r.status();
  auto files = ByPath(*r);
  ASSERT_EQ(files.size(), 5u);
  ASSERT_TRUE(files.count("train.py"));
  EXPECT_FALSE(files["train.py"]->is_dir);
  EXPECT_EQ(files["train.py"]->content, "print('hi')\n");
  EXPECT_TRUE(S_ISREG(files["train.py"]->mode));
  EXPECT_GT(files["train.py"]->mtime, 0);
  ASSERT_TRUE(files.count("pkg"));
  EXPECT_TRUE(files["pkg"]->is_dir);
  EXPECT_TRUE(S_ISDIR(files["pkg"]->mode));
  EXPECT_TRUE(files.count("pkg/util.py"));
  EXPECT_TRUE(files.count("pkg/data"));
  EXPECT_TRUE(files.count("pkg/data/x.csv"));
  EXPECT_EQ(r->total_bytes, 12 + 6 + 4);
}

TEST_F(ContextDirTest, HonorsDetIgnoreAndDefaults) {
  Write("ctx/.detignore", "*.ckpt\nbig/\n/only_top.txt\n# comment\n");
  Write("ctx/train.py", "x");
  Write("ctx/model.ckpt", "x");
  Write("ctx/sub/model.ckpt", "x");
  Write("ctx/big/blob.bin", "x");
  Write("ctx/only_top.txt", "x");
  Write("ctx/sub/only_top.txt", "x");
  Write("ctx/__pycache__/m.cpython-311.pyc", "x");
  Write("ctx/sub/.detignore", "ignored file too");
  Write("ctx/.git/HEAD", "x");
  absl::StatusOr<ContextResult> r = ReadContext(dir_ / "ctx", {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> paths;
  for (const auto& f : r->files) paths.push_back(f.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"sub", "sub/only_top.txt", "train.py"}));
}

TEST_F(ContextDirTest, JsonUsesUpstreamFileShape) {
  Write("ctx/a.txt", "hello");
  fs::create_directories(dir_ / "ctx" / "d");
  absl::StatusOr<ContextResult> r = ReadContext(dir_ / "ctx", {});
  ASSERT_TRUE(r.ok());
  nlohmann::json j = ContextToJson(r->files);
  ASSERT_EQ(j.size(), 2u);
  for (const auto& f : j) {
    EXPECT_TRUE(f["mtime"].is_string());
    EXPECT_EQ(f["uid"], 0);
    EXPECT_EQ(f["gid"], 0);
    EXPECT_TRUE(f["mode"].is_number_integer());
    if (f["path"] == "a.txt") {
      EXPECT_EQ(f["type"], 48);
      EXPECT_EQ(f["content"], Base64Encode("hello"));
    } else {
      EXPECT_EQ(f["path"], "d");
      EXPECT_EQ(f["type"], 53);
      EXPECT_EQ(f["content"], "");
    }
  }
}

TEST_F(ContextDirTest, RefusesOversizedContextNamingSizeAndLimit) {
  Write("ctx/a.bin", std::string(600, 'a'));
  Write("ctx/b.bin", std::string(600, 'b'));
  absl::StatusOr<ContextResult> r = ReadContext(dir_ / "ctx", {}, /*limit=*/1024);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("1200 bytes"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("1024 bytes"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find(".detignore"), std::string::npos);
  // Ignored files do not count.
  Write("ctx/.detignore", "b.bin\n");
  EXPECT_TRUE(ReadContext(dir_ / "ctx", {}, 1024).ok());
}

TEST_F(ContextDirTest, DefaultLimitIs95MiB) { EXPECT_EQ(kMaxContextBytes, 99614720); }

TEST_F(ContextDirTest, IncludesArePrefixedByTheirName) {
  Write("ctx/train.py", "x");
  Write("extra/lib/helper.py", "y");
  Write("single.txt", "z");
  absl::StatusOr<ContextResult> r =
      ReadContext(dir_ / "ctx", {dir_ / "extra", dir_ / "single.txt"});
  ASSERT_TRUE(r.ok()) << r.status();
  auto files = ByPath(*r);
  EXPECT_TRUE(files.count("train.py"));
  ASSERT_TRUE(files.count("extra"));
  EXPECT_TRUE(files["extra"]->is_dir);
  EXPECT_TRUE(files.count("extra/lib"));
  EXPECT_TRUE(files.count("extra/lib/helper.py"));
  EXPECT_TRUE(files.count("single.txt"));
}

TEST_F(ContextDirTest, DuplicateRootsAndBadPathsFail) {
  Write("ctx/extra/a", "x");
  Write("extra/b", "y");
  EXPECT_FALSE(ReadContext(dir_ / "ctx", {dir_ / "extra"}).ok());
  EXPECT_EQ(ReadContext(dir_ / "missing", {}).status().code(), absl::StatusCode::kNotFound);
  Write("file.txt", "x");
  EXPECT_EQ(ReadContext(dir_ / "file.txt", {}).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<ContextResult> none = ReadContext(std::nullopt, {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->files.empty());
}

TEST_F(ContextDirTest, SymlinkedDirectoriesAreListedNotFollowed) {
  Write("outside/secret.txt", "x");
  Write("ctx/a.txt", "x");
  fs::create_directory_symlink(dir_ / "outside", dir_ / "ctx" / "link");
  fs::create_symlink(dir_ / "nowhere", dir_ / "ctx" / "broken");
  absl::StatusOr<ContextResult> r = ReadContext(dir_ / "ctx", {});
  ASSERT_TRUE(r.ok()) << r.status();
  auto files = ByPath(*r);
  EXPECT_TRUE(files.count("link"));
  EXPECT_TRUE(files["link"]->is_dir);
  EXPECT_FALSE(files.count("link/secret.txt"));
  EXPECT_FALSE(files.count("broken"));
  EXPECT_EQ(r->warnings.size(), 1u);
}

}  // namespace
}  // namespace det::cli

#include "common/archive.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_util.h"

namespace det {
namespace {

TEST(ArchiveTest, RoundTripsFilesAndDirectories) {
  std::vector<ArchiveEntry> in = {
      {.path = "pkg", .content = "", .is_directory = true, .mode = 0755, .mtime = 10},
      {.path = "pkg/train.py", .content = "print('hi')\n", .is_directory = false, .mode = 0644, .mtime = 20},
      {.path = "const.yaml", .content = std::string(100000, 'x'), .is_directory = false, .mode = 0600, .mtime = 30}};
  auto tgz = CreateTarGz(in);
  ASSERT_TRUE(tgz.ok()) << tgz.status();
  auto out = ReadTarGz(*tgz);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_TRUE((*out)[0].is_directory);
  EXPECT_EQ((*out)[1].path, "pkg/train.py");
  EXPECT_EQ((*out)[1].content, "print('hi')\n");
  EXPECT_EQ((*out)[2].content.size(), 100000u);
  EXPECT_EQ((*out)[2].mode, 0600u);
  EXPECT_EQ((*out)[2].mtime, 30);
}

TEST(ArchiveTest, RefusesPathsThatEscape) {
  EXPECT_FALSE(CreateTarGz({{.path = "../evil", .content = "x"}}).ok());
  EXPECT_FALSE(CreateTarGz({{.path = "/etc/passwd", .content = "x"}}).ok());
}

TEST(ArchiveTest, ExtractsIntoDirectory) {
  auto dir = std::filesystem::temp_directory_path() / ("det_archive_test_" + std::to_string(getpid()));
  auto tgz = CreateTarGz({{.path = "a/b.txt", .content = "hello"}});
  ASSERT_TRUE(tgz.ok());
  ASSERT_TRUE(ExtractTarGz(*tgz, dir).ok());
  EXPECT_EQ(*ReadFile(dir / "a/b.txt"), "hello");
  std::filesystem::remove_all(dir);
}

TEST(ArchiveTest, GarbageIsAnError) { EXPECT_FALSE(ReadTarGz("not a tarball").ok()); }

}  // namespace
}  // namespace det

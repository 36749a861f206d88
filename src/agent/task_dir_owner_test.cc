#include "agent/task_dir_owner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace det::agent {
namespace {

struct stat Stat(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st;
}

TEST(GiveTaskDirTest, EverythingBelowChangesOwnerButNotWhatALinkPointsTo) {
  if (::geteuid() != 0) GTEST_SKIP() << "changing owners needs root";
  auto root = std::filesystem::temp_directory_path() / ("task_dir_owner_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "task" / "sub");
  std::filesystem::create_directories(root / "outside");
  std::ofstream(root / "task" / "sub" / "file") << "x";
  std::filesystem::create_directory_symlink(root / "outside", root / "task" / "mount");

  ASSERT_TRUE(GiveTaskDir(root / "task", 65534, 65533).ok());
  for (const char* rel : {"task", "task/sub", "task/sub/file", "task/mount"}) {
    EXPECT_EQ(Stat(root / rel).st_uid, 65534u) << rel;
    EXPECT_EQ(Stat(root / rel).st_gid, 65533u) << rel;
  }
  EXPECT_EQ(Stat(root / "outside").st_uid, 0u) << "a link's target keeps its owner";
  std::filesystem::remove_all(root);
}

TEST(GiveTaskDirTest, ADirectoryAboveThatTheUserCannotPassIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "changing owners needs root";
  auto root = std::filesystem::temp_directory_path() / ("task_dir_closed_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "agent" / "task");
  ::chmod(root.c_str(), 0700);
  absl::Status st = GiveTaskDir(root / "agent" / "task", 65534, 65534);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find(root.string() + " (mode 0700)"), std::string::npos) << st;
  ::chmod(root.c_str(), 0711);
  EXPECT_TRUE(GiveTaskDir(root / "agent" / "task", 65534, 65534).ok());
  std::filesystem::remove_all(root);
}

TEST(GiveTaskDirTest, AMissingDirectoryIsAnError) {
  absl::Status st = GiveTaskDir("/nonexistent/task", 1, 1);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/task"), std::string::npos) << st;
}

}  // namespace
}  // namespace det::agent

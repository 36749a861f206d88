#include "agent/task_mounts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace det::agent {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TaskMountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("det_mounts_test_" + std::to_string(getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "host");
    fs::create_directories(root_ / "task");
    std::ofstream(root_ / "host" / "data.txt") << "hello";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(TaskMountsTest, RelativeAndAbsoluteContainerPathsLinkToTheHostPath) {
  std::string host = (root_ / "host").string();
  std::string absolute = (root_ / "elsewhere" / "data").string();
  ASSERT_TRUE(ApplyMounts({{host, "mnt/data", false}, {host, absolute, true}}, root_ / "task").ok());
  EXPECT_TRUE(fs::exists(root_ / "task" / "mnt" / "data" / "data.txt"));
  EXPECT_TRUE(fs::exists(fs::path(absolute) / "data.txt"));
  // A second run of the task finds its own links and keeps them.
  EXPECT_TRUE(ApplyMounts({{host, absolute, true}}, root_ / "task").ok());
}

TEST_F(TaskMountsTest, RefusesAMissingHostPathAndAnOccupiedContainerPath) {
  absl::Status missing = ApplyMounts({{(root_ / "nope").string(), "x", false}}, root_ / "task");
  EXPECT_THAT(missing.message(), HasSubstr("does not exist"));
  fs::create_directories(root_ / "task" / "taken");
  absl::Status taken = ApplyMounts({{(root_ / "host").string(), "taken", false}}, root_ / "task");
  EXPECT_THAT(taken.message(), HasSubstr("already exists"));
}

TEST_F(TaskMountsTest, WorkDirIsTheTaskDirectoryUnlessSet) {
  EXPECT_EQ(*TaskWorkDir("", root_ / "task"), root_ / "task");
  EXPECT_EQ(*TaskWorkDir((root_ / "host").string(), root_ / "task"), root_ / "host");
  fs::create_directories(root_ / "task" / "sub");
  EXPECT_EQ(*TaskWorkDir("sub", root_ / "task"), root_ / "task" / "sub");
  EXPECT_THAT(TaskWorkDir("missing", root_ / "task").status().message(), HasSubstr("work_dir"));
}

}  // namespace
}  // namespace det::agent

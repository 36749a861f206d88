#include "agent/task_state.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace det::agent {
namespace {

class TaskStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/det-task-state-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::filesystem::path root_;
};

TEST_F(TaskStateTest, RecordRoundTripsWithAMultiLineAnnotation) {
  TaskState state(root_ / "alloc.1");
  ASSERT_TRUE(state.Create().ok());
  struct stat st;
  ASSERT_EQ(::stat(state.dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the record holds a session token";
  ASSERT_TRUE(state.WriteRecord({1234, 987654321, "{\"a\":1}\nsecond line"}).ok());
  absl::StatusOr<TaskRecord> record = state.ReadRecord();
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->pid, 1234);
  EXPECT_EQ(record->start_time, 987654321u);
  EXPECT_EQ(record->annotation, "{\"a\":1}\nsecond line");
}

TEST_F(TaskStateTest, MissingAndCorruptRecordsAreErrors) {
  TaskState state(root_ / "alloc.1");
  ASSERT_TRUE(state.Create().ok());
  EXPECT_EQ(state.ReadRecord().status().code(), absl::StatusCode::kNotFound);
  std::ofstream(state.dir() / "task") << "12x 5\n";
  EXPECT_EQ(state.ReadRecord().status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(TaskStateTest, CreateStartsAfresh) {
  TaskState state(root_ / "alloc.1");
  ASSERT_TRUE(state.Create().ok());
  std::ofstream(state.exit_status_path()) << "3\n";
  EXPECT_EQ(state.ReadExitStatus(), 3);
  ASSERT_TRUE(state.Create().ok());
  EXPECT_EQ(state.ReadExitStatus(), std::nullopt);
  state.Remove();
  EXPECT_FALSE(std::filesystem::exists(state.dir()));
}

TEST_F(TaskStateTest, LogPositionDefaultsToTheStart) {
  TaskState state(root_ / "alloc.1");
  ASSERT_TRUE(state.Create().ok());
  EXPECT_EQ(state.ReadLogPosition().stdout_offset, 0u);
  ASSERT_TRUE(state.WriteLogPosition({120, 7}).ok());
  LogPosition position = state.ReadLogPosition();
  EXPECT_EQ(position.stdout_offset, 120u);
  EXPECT_EQ(position.stderr_offset, 7u);
  std::ofstream(state.dir() / "log_position") << "garbage";
  EXPECT_EQ(state.ReadLogPosition().stderr_offset, 0u) << "re-shipping beats losing lines";
}

TEST(ProcessStartTimeTest, NamesLiveProcessesOnly) {
  std::optional<uint64_t> mine = ProcessStartTime(::getpid());
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(ProcessStartTime(::getpid()), mine) << "stable for one process";
  EXPECT_EQ(ProcessStartTime(0x3fffffff), std::nullopt);
}

}  // namespace
}  // namespace det::agent

#include "common/subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det {
namespace {

using ::testing::HasSubstr;

constexpr std::chrono::seconds kLimit{10};

TEST(RunCommandTest, FeedsStdinAndKeepsBothOutputsAndTheExitStatus) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"sh", "-c", "cat; echo oops >&2; exit 3"}, "hello\nworld\n", {}, kLimit);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "hello\nworld\n");
  EXPECT_EQ(r->err, "oops\n");
  EXPECT_EQ(r->exit_status, 3) << "a failing program is a result, not an error";
}

TEST(RunCommandTest, AddsAndOverridesEnvironmentVariables) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"sh", "-c", "printf '%s %s' \"$DET_A\" \"$HOME\""}, "", {{"DET_A", "a"}, {"HOME", "/h"}}, kLimit);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "a /h");
}

TEST(RunCommandTest, ASignalIs128PlusItsNumber) {
  absl::StatusOr<CommandResult> r = RunCommand({"sh", "-c", "kill -9 $$"}, "", {}, kLimit);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 137);
}

TEST(RunCommandTest, AMissingProgramIsNotFoundAndAnOverlongOneIsKilled) {
  EXPECT_TRUE(absl::IsNotFound(RunCommand({"det-no-such-program"}, "", {}, kLimit).status()));
  absl::StatusOr<CommandResult> slow = RunCommand({"sh", "-c", "sleep 30 & wait"}, "", {}, std::chrono::milliseconds(200));
  ASSERT_TRUE(absl::IsDeadlineExceeded(slow.status())) << slow.status();
  EXPECT_THAT(slow.status().message(), HasSubstr("ran longer than 200 ms"));
}

TEST(RunCommandTest, AProgramThatReadsNoInputDoesNotBreakTheCaller) {
  std::string big(1 << 20, 'x');  // more than a pipe holds
  absl::StatusOr<CommandResult> r = RunCommand({"true"}, big, {}, kLimit);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 0);
}

}  // namespace
}  // namespace det

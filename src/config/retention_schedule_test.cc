#include "config/retention_schedule.h"

#include <gtest/gtest.h>

#include "absl/time/time.h"

namespace det::config {
namespace {

using Time = RetentionSchedule::Time;

Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return absl::ToChronoTime(t);
}

std::string Next(const std::string& schedule, const char* after) {
  absl::StatusOr<RetentionSchedule> s = RetentionSchedule::Parse(schedule);
  EXPECT_TRUE(s.ok()) << s.status();
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromChrono(s->NextRun(At(after))), absl::UTCTimeZone());
}

TEST(RetentionScheduleTest, DurationsRunThatLongAfterTheLastRun) {
  EXPECT_EQ(Next("24h", "2026-11-26T10:15:30Z"), "2026-11-27T10:15:30Z");
  EXPECT_EQ(Next("1h30m", "2026-11-26T10:15:30Z"), "2026-11-26T11:45:30Z");
  EXPECT_EQ(Next("90s", "2026-11-26T10:15:30Z"), "2026-11-26T10:17:00Z");
}

TEST(RetentionScheduleTest, CronRunsAtTheNextMatchingMinuteInUtc) {
  EXPECT_EQ(Next("0 0 * * *", "2026-11-26T10:15:30Z"), "2026-11-27T00:00:00Z");
  EXPECT_EQ(Next("0 0 * * *", "2026-11-26T00:00:00Z"), "2026-11-27T00:00:00Z") << "strictly after";
  EXPECT_EQ(Next("*/15 * * * *", "2026-11-26T10:15:30Z"), "2026-11-26T10:30:00Z");
  EXPECT_EQ(Next("30 2 1 * *", "2026-11-26T10:15:30Z"), "2026-12-01T02:30:00Z");
  EXPECT_EQ(Next("0 12 * * 0", "2026-11-26T10:15:30Z"), "2026-11-29T12:00:00Z") << "Sunday";
  EXPECT_EQ(Next("0 12 * * 7", "2026-11-26T10:15:30Z"), "2026-11-29T12:00:00Z") << "7 is Sunday too";
  EXPECT_EQ(Next("0 12 * * 1-5", "2026-11-27T13:00:00Z"), "2026-11-30T12:00:00Z") << "skips the weekend";
  EXPECT_EQ(Next("0 0 29 2 *", "2026-11-26T10:15:30Z"), "2028-02-29T00:00:00Z");
  // Both day fields restricted: either one runs.
  EXPECT_EQ(Next("0 0 1 * 5", "2026-11-26T10:15:30Z"), "2026-11-27T00:00:00Z");
  EXPECT_EQ(Next("0 0,12 * 1,6 *", "2026-11-26T10:15:30Z"), "2027-01-01T00:00:00Z");
}

TEST(RetentionScheduleTest, BadSchedulesSayWhatIsAllowed) {
  for (const char* bad : {"", "24", "1d", "0s", "99999999999999999h", "* * * *", "60 * * * *", "* 24 * * *", "0 0 0 * *", "0 0 * 13 *",
                          "0 0 * * 8", "5-1 * * * *", "*/0 * * * *", "a b c d e"}) {
    absl::StatusOr<RetentionSchedule> s = RetentionSchedule::Parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.status().message().find("retention_policy.schedule"), absl::string_view::npos) << s.status();
  }
  EXPECT_NE(RetentionSchedule::Parse("61 * * * *").status().message().find("0-59"), absl::string_view::npos);
}

}  // namespace
}  // namespace det::config

#include "master/usage_history.h"

#include <gtest/gtest.h>

#include <chrono>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace det::master {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::minutes;

WallTime At(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return std::chrono::time_point_cast<WallTime::duration>(
      absl::ToChronoTime(absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone())));
}

constexpr int64_t kHour = 3600LL * 1000000LL;

UsageRecord Record(const std::string& user, int slots, WallTime start, std::optional<WallTime> end) {
  return {.allocation_id = user + "-a", .kind = "COMMAND", .username = user, .workspace = "Uncategorized",
          .resource_pool = "default", .slots = slots, .start_time = start, .end_time = end};
}

TEST(UsageHistoryTest, ClipsToTheWindowAndCountsRunningAllocationsUntilNow) {
  WallTime t0 = At(2024, 3, 1, 10, 0, 0);
  UsageRecord r = Record("ann", 4, t0, t0 + hours(2));
  EXPECT_EQ(ClippedMicros(r, {t0 - hours(1), t0 + hours(5)}, t0), 2 * kHour);
  EXPECT_EQ(ClippedMicros(r, {t0 + hours(1), t0 + hours(5)}, t0), kHour);
  EXPECT_EQ(ClippedMicros(r, {t0 + hours(2), t0 + hours(5)}, t0), 0) << "ends exactly where the window begins";
  EXPECT_EQ(ClippedMicros(r, {t0 - hours(3), t0}, t0), 0);
  r.end_time.reset();
  EXPECT_EQ(ClippedMicros(r, {t0, t0 + hours(10)}, t0 + minutes(30)), kHour / 2);
  r.end_time = t0 + microseconds(7);
  EXPECT_EQ(ClippedMicros(r, {t0, t0 + hours(1)}, t0), 7) << "to the microsecond";
}

TEST(UsageHistoryTest, SplitsAcrossMidnightExactly) {
  // 22:30 on March 1 to 01:15 on March 2 on 2 slots: 1.5 h and 1.25 h of wall time.
  std::vector<UsageRecord> records = {
      Record("ann", 2, At(2024, 3, 1, 22, 30, 0), At(2024, 3, 2, 1, 15, 0) + microseconds(1))};
  std::vector<UsageBucket> days =
      AggregateUsage(records, absl::CivilDay(2024, 3, 1), absl::CivilDay(2024, 3, 3), UsagePeriod::kDaily, At(2024, 4, 1));
  ASSERT_EQ(days.size(), 3u);
  EXPECT_EQ(days[0].period_start, absl::CivilDay(2024, 3, 1));
  EXPECT_EQ(days[0].slot_micros, 2 * (kHour * 3 / 2));
  EXPECT_EQ(days[1].slot_micros, 2 * (kHour * 5 / 4 + 1));
  EXPECT_EQ(days[2].slot_micros, 0) << "a day without usage is present with zero";
  EXPECT_EQ(days[0].by_username.at("ann"), days[0].slot_micros);
  EXPECT_TRUE(days[2].by_username.empty());
  EXPECT_EQ(days[0].slot_micros + days[1].slot_micros,
            2 * ClippedMicros(records[0], DaysWindow(absl::CivilDay(2024, 3, 1), absl::CivilDay(2024, 3, 3)), At(2024, 4, 1)));
}

TEST(UsageHistoryTest, MonthsAreCalendarMonthsClippedToTheDays) {
  // Jan 31 12:00 to Feb 1 06:00 (1 slot), and a February 29 on a leap year.
  std::vector<UsageRecord> records = {Record("bob", 1, At(2024, 1, 31, 12, 0, 0), At(2024, 2, 1, 6, 0, 0)),
                                      Record("cy", 3, At(2024, 2, 29, 0, 0, 0), At(2024, 3, 1, 0, 0, 0))};
  std::vector<UsageBucket> months = AggregateUsage(records, absl::CivilDay(2024, 1, 31), absl::CivilDay(2024, 2, 29),
                                                   UsagePeriod::kMonthly, At(2025, 1, 1));
  ASSERT_EQ(months.size(), 2u);
  EXPECT_EQ(months[0].period_start, absl::CivilDay(2024, 1, 1)) << "a month starts on its first day";
  EXPECT_EQ(months[0].slot_micros, 12 * kHour);
  EXPECT_EQ(months[1].period_start, absl::CivilDay(2024, 2, 1));
  EXPECT_EQ(months[1].slot_micros, 6 * kHour + 3 * 24 * kHour);
  EXPECT_EQ(months[1].by_username.at("cy"), 72 * kHour);

  // The window ends on Feb 28: cy's day is outside; bob's January half is outside when it starts Feb 1.
  months = AggregateUsage(records, absl::CivilDay(2024, 2, 1), absl::CivilDay(2024, 2, 28), UsagePeriod::kMonthly,
                          At(2025, 1, 1));
  ASSERT_EQ(months.size(), 1u);
  EXPECT_EQ(months[0].slot_micros, 6 * kHour);
}

TEST(UsageHistoryTest, SplitsByLabelPoolWorkspaceAndKind) {
  UsageRecord trial = Record("ann", 2, At(2024, 5, 1, 0, 0, 0), At(2024, 5, 1, 1, 0, 0));
  trial.kind = "TRIAL";
  trial.labels = {"nlp", "big"};
  trial.resource_pool = "gpu";
  trial.workspace = "research";
  UsageRecord command = Record("bob", 1, At(2024, 5, 1, 0, 0, 0), At(2024, 5, 1, 3, 0, 0));
  std::vector<UsageBucket> day = AggregateUsage({trial, command}, absl::CivilDay(2024, 5, 1), absl::CivilDay(2024, 5, 1),
                                                UsagePeriod::kDaily, At(2024, 6, 1));
  ASSERT_EQ(day.size(), 1u);
  EXPECT_EQ(day[0].slot_micros, 5 * kHour);
  EXPECT_EQ(day[0].by_label, (std::map<std::string, int64_t>{{"big", 2 * kHour}, {"nlp", 2 * kHour}}));
  EXPECT_EQ(day[0].by_pool, (std::map<std::string, int64_t>{{"default", 3 * kHour}, {"gpu", 2 * kHour}}));
  EXPECT_EQ(day[0].by_workspace,
            (std::map<std::string, int64_t>{{"Uncategorized", 3 * kHour}, {"research", 2 * kHour}}));
  EXPECT_EQ(day[0].by_kind, (std::map<std::string, int64_t>{{"COMMAND", 3 * kHour}, {"TRIAL", 2 * kHour}}));
}

TEST(UsageHistoryTest, ParsesDatesAndPeriodsOrNamesTheField) {
  EXPECT_EQ(*ParseUsageDate("startDate", "2024-02-29"), absl::CivilDay(2024, 2, 29));
  absl::StatusOr<absl::CivilDay> bad = ParseUsageDate("endDate", "2023-02-29");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("endDate: expected a date as YYYY-MM-DD"), std::string::npos);
  EXPECT_FALSE(ParseUsageDate("startDate", "2024-3-1").ok());
  EXPECT_FALSE(ParseUsageDate("startDate", "").ok());
  EXPECT_EQ(*ParseUsagePeriod("RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY"), UsagePeriod::kMonthly);
  absl::StatusOr<UsagePeriod> p = ParseUsagePeriod("RESOURCE_ALLOCATION_AGGREGATION_PERIOD_UNSPECIFIED");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("period: expected RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY or"),
            std::string::npos);
  EXPECT_STREQ(UsagePeriodName(UsagePeriod::kDaily), "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY");
}

}  // namespace
}  // namespace det::master

#include "master/observability/process_stats.h"

#include <gtest/gtest.h>

#include <ctime>

namespace det::master {
namespace {

// A command name with a space and a parenthesis, as proc(5) allows.
constexpr char kStat[] =
    "4242 (det master) x) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 50 0 0 20 0 7 0 1000 123456789 "
    "3000 "
    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
constexpr char kSystemStat[] = "cpu  1 2 3 4\nintr 5\nbtime 1700000000\nprocesses 9\n";
constexpr char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max open files            1024                 524288               files     \n";

TEST(ProcessStatsTest, ReadsProcFields) {
  absl::StatusOr<ProcessStats> s = ParseProcessStats(kStat, kSystemStat, kLimits, 100, 4096);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->cpu_seconds, 3.0);  // (250 + 50) ticks at 100 a second
  EXPECT_DOUBLE_EQ(s->threads, 7);
  EXPECT_DOUBLE_EQ(s->start_time_seconds, 1700000010.0);  // btime + 1000 ticks
  EXPECT_DOUBLE_EQ(s->virtual_bytes, 123456789);
  EXPECT_DOUBLE_EQ(s->resident_bytes, 3000.0 * 4096);
  EXPECT_DOUBLE_EQ(s->max_fds, 1024);
}

TEST(ProcessStatsTest, RefusesTruncatedFiles) {
  EXPECT_FALSE(ParseProcessStats("4242 (det) S 1 2 3", kSystemStat, kLimits, 100, 4096).ok());
  EXPECT_FALSE(ParseProcessStats("no parentheses", kSystemStat, kLimits, 100, 4096).ok());
  absl::StatusOr<ProcessStats> no_btime = ParseProcessStats(kStat, "cpu 1 2\n", kLimits, 100, 4096);
  EXPECT_FALSE(no_btime.ok());
  EXPECT_NE(no_btime.status().message().find("btime"), std::string::npos);
}

TEST(ProcessStatsTest, ReadsThisProcess) {
  absl::StatusOr<ProcessStats> s = ReadProcessStats();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_GT(s->resident_bytes, 0);
  EXPECT_GE(s->open_fds, 1);
  EXPECT_GT(s->start_time_seconds, 1.6e9);
  EXPECT_LE(s->start_time_seconds, static_cast<double>(std::time(nullptr)) + 1);
  EXPECT_GE(s->threads, 1);
}

}  // namespace
}  // namespace det::master

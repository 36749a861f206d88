#pragma once
// Usage history (GET /api/v1/resources/allocation/raw and .../aggregated): how long allocations held
// their slots inside a window, and the same as slot-seconds per UTC day or month, split by user,
// experiment label, resource pool, workspace and task type.
//
// Pure: no store, no clock (the caller passes `now` for allocations still running). Time is counted
// in integer microseconds (the store's resolution) so that the periods of a window add up exactly to
// the window's total; seconds appear only at the edge (UsageSeconds).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "common/time_util.h"

namespace det::master {

// One allocation and what its slots are attributed to.
struct UsageRecord {
  std::string allocation_id;
  std::string kind;  // the task's type: TRIAL, COMMAND, NOTEBOOK, ...
  std::string username;
  int64_t user_id = 0;
  std::string workspace;
  std::string resource_pool;
  std::vector<std::string> labels;       // its experiment's; empty for tasks that are not trials
  std::optional<int64_t> experiment_id;  // trials only
  int slots = 0;
  WallTime start_time;
  std::optional<WallTime> end_time;  // nullopt: still holding its slots
};

// A half-open window [begin, end).
struct UsageWindow {
  WallTime begin;
  WallTime end;
};

// Microseconds of [start_time, end_time or `now`) inside `window`; 0 when they do not overlap.
int64_t ClippedMicros(const UsageRecord& record, const UsageWindow& window, WallTime now);

// Microseconds as seconds (the wire's float).
double UsageSeconds(int64_t micros);

enum class UsagePeriod { kDaily, kMonthly };

// Upstream's enum names: RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY / _MONTHLY.
const char* UsagePeriodName(UsagePeriod period);
// InvalidArgument naming `period` and the allowed values for anything else (UNSPECIFIED included).
absl::StatusOr<UsagePeriod> ParseUsagePeriod(const std::string& text);
// A YYYY-MM-DD date; InvalidArgument naming `field` otherwise.
absl::StatusOr<absl::CivilDay> ParseUsageDate(const std::string& field, const std::string& text);

// One day or month of slot-microseconds. A split map holds only keys with time in the period.
struct UsageBucket {
  absl::CivilDay period_start;  // the day, or the month's first day
  int64_t slot_micros = 0;
  std::map<std::string, int64_t> by_username;
  std::map<std::string, int64_t> by_label;  // each label of an experiment gets all of its time
  std::map<std::string, int64_t> by_pool;
  std::map<std::string, int64_t> by_workspace;
  std::map<std::string, int64_t> by_kind;
};

// The window [first 00:00 UTC, the day after `last` 00:00 UTC).
UsageWindow DaysWindow(absl::CivilDay first, absl::CivilDay last);

// Every day (or month touching the days) from `first` through `last`, in order, each with the
// slots x microseconds of `records` inside both the period and the days [first, last]. Periods with
// no usage are present with zeros. REQUIRES: first <= last.
std::vector<UsageBucket> AggregateUsage(const std::vector<UsageRecord>& records, absl::CivilDay first,
                                        absl::CivilDay last, UsagePeriod period, WallTime now);

}  // namespace det::master

#include "master/usage_history.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace det::master {
namespace {

constexpr char kDaily[] = "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY";
constexpr char kMonthly[] = "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY";

WallTime MidnightUtc(absl::CivilDay day) {
  return std::chrono::time_point_cast<WallTime::duration>(
      absl::ToChronoTime(absl::FromCivil(day, absl::UTCTimeZone())));
}

void Add(std::map<std::string, int64_t>& split, const std::string& key, int64_t micros) {
  split[key] += micros;
}

}  // namespace

int64_t ClippedMicros(const UsageRecord& record, const UsageWindow& window, WallTime now) {
  WallTime end = record.end_time.value_or(now);
  WallTime from = std::max(record.start_time, window.begin);
  WallTime to = std::min(end, window.end);
  if (to <= from) return 0;
  return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
}

double UsageSeconds(int64_t micros) { return static_cast<double>(micros) / 1e6; }

const char* UsagePeriodName(UsagePeriod period) { return period == UsagePeriod::kDaily ? kDaily : kMonthly; }

absl::StatusOr<UsagePeriod> ParseUsagePeriod(const std::string& text) {
  if (text == kDaily) return UsagePeriod::kDaily;
  if (text == kMonthly) return UsagePeriod::kMonthly;
  return absl::InvalidArgumentError(
      absl::StrCat("period: expected ", kDaily, " or ", kMonthly, ", got \"", text, "\""));
}

absl::StatusOr<absl::CivilDay> ParseUsageDate(const std::string& field, const std::string& text) {
  absl::CivilDay day;
  // ParseCivilTime accepts exactly YYYY-MM-DD for a day, and rejects 2024-02-30.
  if (text.size() != 10 || !absl::ParseCivilTime(text, &day)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": expected a date as YYYY-MM-DD (UTC), got \"", text, "\""));
  }
  return day;
}

UsageWindow DaysWindow(absl::CivilDay first, absl::CivilDay last) {
  return {MidnightUtc(first), MidnightUtc(last + 1)};
}

std::vector<UsageBucket> AggregateUsage(const std::vector<UsageRecord>& records, absl::CivilDay first,
                                        absl::CivilDay last, UsagePeriod period, WallTime now) {
  const UsageWindow whole = DaysWindow(first, last);
  std::vector<UsageBucket> buckets;
  std::vector<UsageWindow> windows;
  for (absl::CivilDay start = first; start <= last;) {
    absl::CivilDay next = period == UsagePeriod::kDaily
                              ? start + 1
                              : absl::CivilDay(absl::CivilMonth(start) + 1);
    UsageBucket bucket;
    bucket.period_start = period == UsagePeriod::kDaily ? start : absl::CivilDay(absl::CivilMonth(start));
    buckets.push_back(std::move(bucket));
    windows.push_back({MidnightUtc(start), std::min(MidnightUtc(next), whole.end)});
    start = next;
  }
  for (const UsageRecord& r : records) {
    if (ClippedMicros(r, whole, now) == 0) continue;
    for (size_t i = 0; i < buckets.size(); ++i) {
      int64_t micros = ClippedMicros(r, windows[i], now) * r.slots;
      if (micros == 0) continue;
      UsageBucket& b = buckets[i];
      b.slot_micros += micros;
      Add(b.by_username, r.username, micros);
      for (const std::string& label : r.labels) Add(b.by_label, label, micros);
      Add(b.by_pool, r.resource_pool, micros);
      Add(b.by_workspace, r.workspace, micros);
      Add(b.by_kind, r.kind, micros);
    }
  }
  return buckets;
}

}  // namespace det::master

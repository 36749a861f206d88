#pragma once
// When the master deletes expired task logs (master config `retention_policy.schedule`, as upstream's):
// a duration ("24h", "1h30m", "90s": every so often, from the master's start) or a five-field cron
// expression in UTC ("0 0 * * *": every day at midnight). Cron fields are minute, hour, day of month,
// month and day of week (0-7, 0 and 7 both Sunday), each `*`, a number, a range `a-b`, any of those
// with a step `/n`, or a comma-separated list of them; when both day fields are restricted, a day
// matching either runs (as cron does).
#include <bitset>
#include <chrono>
#include <string>

#include "absl/status/statusor.h"

namespace det::config {

class RetentionSchedule {
 public:
  using Time = std::chrono::system_clock::time_point;

  // InvalidArgument naming the text and what is wrong, with what is allowed.
  static absl::StatusOr<RetentionSchedule> Parse(const std::string& text);

  // The first run strictly after `after` (a duration: `after` plus the interval).
  Time NextRun(Time after) const;
  const std::string& text() const { return text_; }

 private:
  RetentionSchedule() = default;
  bool Matches(Time minute) const;

  std::string text_;
  std::chrono::seconds interval_{0};  // a duration schedule when non-zero
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  std::bitset<13> months_;         // 1..12
  std::bitset<7> days_of_week_;    // 0..6, Sunday 0
  bool any_day_of_month_ = false;
  bool any_day_of_week_ = false;
};

}  // namespace det::config

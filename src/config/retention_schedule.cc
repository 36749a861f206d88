#include "config/retention_schedule.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace det::config {
namespace {

using std::chrono::seconds;

// Go-style durations: one or more <number><unit>, unit h, m or s ("1h30m"); at least one second, each
// number at most a million (of hours: a century).
std::optional<seconds> ParseDuration(absl::string_view text) {
  if (text.empty()) return std::nullopt;
  seconds total{0};
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    int64_t n = 0;
    constexpr int64_t kMaxNumber = 1'000'000;
    if (digits == 0 || digits == text.size() || !absl::SimpleAtoi(text.substr(0, digits), &n) || n > kMaxNumber) {
      return std::nullopt;
    }
    switch (text[digits]) {
      case 'h': total += std::chrono::hours(n); break;
      case 'm': total += std::chrono::minutes(n); break;
      case 's': total += seconds(n); break;
      default: return std::nullopt;
    }
    text.remove_prefix(digits + 1);
  }
  if (total < seconds(1)) return std::nullopt;
  return total;
}

// One cron field into `bits` (values lo..hi); whether it was `*` alone.
template <size_t N>
absl::StatusOr<bool> ParseField(absl::string_view field, int lo, int hi, const char* name, std::bitset<N>& bits) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("the ", name, " field \"", field, "\" ", why, " (allowed: *, ", lo,
                                                   "-", hi, ", ranges a-b, steps */n or a-b/n, lists a,b)"));
  };
  for (absl::string_view part : absl::StrSplit(field, ',')) {
    int step = 1;
    if (size_t slash = part.find('/'); slash != absl::string_view::npos) {
      if (!absl::SimpleAtoi(part.substr(slash + 1), &step) || step < 1) return bad("has a bad step");
      part = part.substr(0, slash);
    }
    int first = lo, last = hi;
    if (part != "*") {
      std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
      if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &first) ||
          (ends.size() == 2 && !absl::SimpleAtoi(ends[1], &last))) {
        return bad("is not a number, range or *");
      }
      if (ends.size() == 1) last = step > 1 ? hi : first;
    }
    if (first < lo || last > hi || first > last) return bad("is out of range");
    for (int v = first; v <= last; v += step) bits.set(static_cast<size_t>(v));
  }
  return field == "*";
}

}  // namespace

absl::StatusOr<RetentionSchedule> RetentionSchedule::Parse(const std::string& text) {
  RetentionSchedule s;
  s.text_ = text;
  if (std::optional<seconds> every = ParseDuration(text)) {
    s.interval_ = *every;
    return s;
  }
  std::vector<absl::string_view> fields = absl::StrSplit(text, ' ', absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "retention_policy.schedule: \"", text, "\" is neither a duration (e.g. \"24h\", \"1h30m\") nor a cron "
        "expression of five fields: minute hour day-of-month month day-of-week (e.g. \"0 0 * * *\")"));
  }
  auto field = [&](auto status) -> absl::Status {
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("retention_policy.schedule \"", text, "\": ", status.status().message()));
    }
    return absl::OkStatus();
  };
  std::bitset<8> week;  // 0..7, folded into 0..6
  absl::StatusOr<bool> minute = ParseField(fields[0], 0, 59, "minute", s.minutes_);
  absl::StatusOr<bool> hour = ParseField(fields[1], 0, 23, "hour", s.hours_);
  absl::StatusOr<bool> dom = ParseField(fields[2], 1, 31, "day-of-month", s.days_of_month_);
  absl::StatusOr<bool> month = ParseField(fields[3], 1, 12, "month", s.months_);
  absl::StatusOr<bool> dow = ParseField(fields[4], 0, 7, "day-of-week", week);
  for (const absl::StatusOr<bool>* f : {&minute, &hour, &dom, &month, &dow}) {
    if (absl::Status st = field(*f); !st.ok()) return st;
  }
  for (int d = 0; d < 7; ++d) s.days_of_week_[d] = week[d] || (d == 0 && week[7]);
  s.any_day_of_month_ = *dom;
  s.any_day_of_week_ = *dow;
  return s;
}

bool RetentionSchedule::Matches(Time minute) const {
  using namespace std::chrono;  // NOLINT(build/namespaces): calendar types
  const sys_days day = floor<days>(minute);
  const year_month_day ymd(day);
  const hh_mm_ss hms(floor<std::chrono::minutes>(minute - day));
  const unsigned weekday = year_month_weekday(day).weekday().c_encoding();
  if (!minutes_[hms.minutes().count()] || !hours_[hms.hours().count()] ||
      !months_[static_cast<unsigned>(ymd.month())]) {
    return false;
  }
  const bool dom = days_of_month_[static_cast<unsigned>(ymd.day())];
  const bool dow = days_of_week_[weekday];
  if (any_day_of_month_ || any_day_of_week_) return dom && dow;
  return dom || dow;
}

RetentionSchedule::Time RetentionSchedule::NextRun(Time after) const {
  if (interval_.count() > 0) return after + interval_;
  // Minute by minute: at most four years of them (February 29th) before giving up a year later.
  Time t = std::chrono::floor<std::chrono::minutes>(after) + std::chrono::minutes(1);
  constexpr int kMinutesInFourYears = 4 * 366 * 24 * 60;
  for (int i = 0; i < kMinutesInFourYears; ++i, t += std::chrono::minutes(1)) {
    if (Matches(t)) return t;
  }
  return after + std::chrono::hours(24 * 366);  // a date that never comes (e.g. "0 0 31 2 *")
}

}  // namespace det::config

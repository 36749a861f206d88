#include "master/auth/token_lifespan.h"

#include "absl/strings/str_cat.h"
#include "common/time_util.h"

namespace det::master {
namespace {

std::chrono::seconds Days(int days) { return std::chrono::hours(24) * days; }

std::string DaysInWords(int days) {
  if (days == config::kInfiniteTokenLifespanDays) return "no limit";
  return absl::StrCat(days, days == 1 ? " day" : " days");
}

}  // namespace

absl::StatusOr<std::chrono::seconds> AccessTokenLifespan(const std::string& lifespan, const config::TokenConfig& limits) {
  if (lifespan.empty()) return Days(limits.default_lifespan_days);
  if (lifespan == "-1") return Days(limits.max_lifespan_days);
  absl::StatusOr<std::chrono::milliseconds> parsed = ParseDuration(lifespan);
  if (!parsed.ok() || *parsed <= std::chrono::milliseconds(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lifespan: \"", lifespan,
        "\" is not a positive Go duration; write a number with a unit (e.g. 720h, 90m, 30s), or -1 for the longest "
        "allowed (security.token.max_lifespan_days)"));
  }
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*parsed);
  if (seconds < std::chrono::seconds(1)) seconds = std::chrono::seconds(1);
  if (seconds > Days(limits.max_lifespan_days)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lifespan: ", lifespan, " is longer than security.token.max_lifespan_days allows (",
        DaysInWords(limits.max_lifespan_days), ", ", Days(limits.max_lifespan_days).count() / 3600,
        "h); ask for less, or -1 for the longest allowed"));
  }
  return seconds;
}

}  // namespace det::master

#include "common/time_util.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace det {

std::string FormatRfc3339(WallTime t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromChrono(t), absl::UTCTimeZone());
}

absl::StatusOr<WallTime> ParseRfc3339(const std::string& text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return absl::InvalidArgumentError(absl::StrCat("bad RFC 3339 timestamp \"", text, "\": ", err));
  }
  return absl::ToChronoTime(t);
}

int64_t ToUnixMicros(WallTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

WallTime FromUnixMicros(int64_t micros) { return WallTime(std::chrono::microseconds(micros)); }

absl::StatusOr<std::chrono::milliseconds> ParseDuration(const std::string& text) {
  absl::Duration d;
  // absl's parser takes Go's syntax; bare numbers (Go takes "0") and negative durations are refused.
  const bool bare_number = text.find_first_not_of("0123456789.") == std::string::npos;
  if (bare_number || !absl::ParseDuration(text, &d) || d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\" is not a duration; write a number with a unit, e.g. 30s, 5m, 1h30m (units: ms, s, m, h)"));
  }
  return absl::ToChronoMilliseconds(d);
}

}  // namespace det

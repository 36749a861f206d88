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

}  // namespace det

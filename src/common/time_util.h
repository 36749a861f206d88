#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace det {

using WallTime = std::chrono::system_clock::time_point;

// RFC 3339 in UTC with microseconds, as protobuf's JSON Timestamp mapping prints: 2024-01-02T03:04:05.123456Z.
std::string FormatRfc3339(WallTime t);
absl::StatusOr<WallTime> ParseRfc3339(const std::string& text);
int64_t ToUnixMicros(WallTime t);
WallTime FromUnixMicros(int64_t micros);

// A Go-style duration ("30s", "5m", "1h30m", "250ms", "1.5h"; units ns, us, ms, s, m, h), as
// upstream's configs write them. InvalidArgument naming the text otherwise (a bare number too).
absl::StatusOr<std::chrono::milliseconds> ParseDuration(const std::string& text);

}  // namespace det

#include "harness/retry_policy.h"

#include <algorithm>

namespace det::harness {

std::chrono::milliseconds RetryPolicy::DelayBefore(int attempt) const {
  std::chrono::milliseconds d = initial_delay;
  for (int i = 1; i < attempt && d < max_delay; ++i) d *= 2;
  return std::min(d, max_delay);
}

bool IsTransient(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

}  // namespace det::harness

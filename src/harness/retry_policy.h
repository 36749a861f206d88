#pragma once
#include <chrono>

#include "absl/status/status.h"

namespace det::harness {

// Exponential backoff for transient failures of calls to the master.
struct RetryPolicy {
  std::chrono::milliseconds initial_delay{500};
  std::chrono::milliseconds max_delay{10000};
  // Give up once this much time has passed since the first attempt (0 = try once).
  std::chrono::milliseconds max_elapsed{30000};

  // The delay before retry number `attempt` (1-based): initial_delay * 2^(attempt-1), capped.
  std::chrono::milliseconds DelayBefore(int attempt) const;

  static RetryPolicy NoRetry() {
    return RetryPolicy{std::chrono::milliseconds(0), std::chrono::milliseconds(0),
                       std::chrono::milliseconds(0)};
  }
};

// Transient failures worth retrying: the master unreachable or answering 503 (Unavailable), 504
// (DeadlineExceeded), or 429 (ResourceExhausted).
bool IsTransient(const absl::Status& status);

}  // namespace det::harness

#pragma once
// A GET to the master that another thread can abort at once. RestClient blocks for the whole
// transfer; a preemption long-poll may last a minute, and process exit must not wait for it.
#include <atomic>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "absl/status/statusor.h"

namespace det::harness {

class CancellableGet {
 public:
  // Authenticates with the allocation token, as Session does.
  CancellableGet(std::string master_url, std::string allocation_token);
  ~CancellableGet();
  CancellableGet(const CancellableGet&) = delete;
  CancellableGet& operator=(const CancellableGet&) = delete;

  // GETs `path` and parses the JSON response, giving up after `timeout_seconds` (DeadlineExceeded).
  // Errors map as RestClient's do; after Cancel() it returns Cancelled at once. One caller at a
  // time.
  absl::StatusOr<nlohmann::json> Get(const std::string& path, long timeout_seconds);

  // Safe from any thread: aborts the Get in progress, and every later one.
  void Cancel();

 private:
  std::string master_url_;
  std::string allocation_token_;
  std::atomic<bool> cancelled_{false};
  void* multi_;  // CURLM*
  void* easy_;   // CURL*
};

}  // namespace det::harness

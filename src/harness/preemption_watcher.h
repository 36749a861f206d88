#pragma once
// Watches the allocation's preemption signal with long polls on a background thread (upstream
// core._PreemptionWatcher): first GET .../signals/preemption?timeout_seconds=0, then 60 s polls
// until the answer is true. Stop() returns promptly even in the middle of a poll.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace det::harness {

// One poll of the preemption signal; a stand-in replaces it in tests.
class PreemptionPoller {
 public:
  virtual ~PreemptionPoller() = default;
  // Blocks up to about `timeout_seconds` for the signal; returns whether to preempt.
  virtual absl::StatusOr<bool> Poll(int timeout_seconds) = 0;
  // Called from another thread: makes the current and later Poll calls return quickly.
  virtual void Cancel() = 0;
};

// GET /api/v1/allocations/{id}/signals/preemption?timeout_seconds=N with an HTTP timeout of N+10 s.
std::unique_ptr<PreemptionPoller> MakeRestPreemptionPoller(const std::string& master_url,
                                                           const std::string& allocation_token,
                                                           const std::string& allocation_id);

class PreemptionWatcher {
 public:
  struct Options {
    int long_poll_seconds = 60;
    std::chrono::milliseconds error_backoff{5000};  // pause after a failed poll
  };

  PreemptionWatcher(std::unique_ptr<PreemptionPoller> poller, Options options);
  explicit PreemptionWatcher(std::unique_ptr<PreemptionPoller> poller)
      : PreemptionWatcher(std::move(poller), Options{}) {}
  ~PreemptionWatcher();  // Stop()s
  PreemptionWatcher(const PreemptionWatcher&) = delete;
  PreemptionWatcher& operator=(const PreemptionWatcher&) = delete;

  // Starts the thread. Call once.
  void Start();
  // The latest answer. Blocks only until the first (timeout 0) poll has answered or failed (a
  // failure counts as false). Safe for concurrent use; returns false when not started.
  bool ShouldPreempt();
  // Stops the thread without waiting for a poll in progress to finish. Idempotent.
  void Stop();

 private:
  void Run();

  std::unique_ptr<PreemptionPoller> poller_;
  Options options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<bool> should_preempt_;  // guarded by mu_; unset until the first poll answered
  bool started_ = false;                // guarded by mu_
  bool stopping_ = false;               // guarded by mu_
  std::thread thread_;
};

}  // namespace det::harness

#pragma once
// Non-blocking metric reporting: Report() queues and returns at once; one background thread POSTs
// the queued reports in order, those queued within a short linger (or while a request is out) together
// in one request to .../metrics/batch, retrying transient failures with backoff. The training loop never waits on the
// network unless it calls Flush() or Close().
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "harness/retry_policy.h"

namespace det::harness {

class MetricsReporter {
 public:
  // Sends one body to `path`; called only on the reporter's thread.
  using PostFn = std::function<absl::Status(const std::string& path, const nlohmann::json& body)>;

  // At most this many reports go in one request.
  static constexpr size_t kMaxReportsPerRequest = 1000;

  // Retry defaults: up to 2 minutes of backoff per report, enough to ride out a master restart.
  static RetryPolicy DefaultRetry();

  // How long the reporter waits for more reports to send together (unless Flush() or Close() waits).
  static constexpr std::chrono::milliseconds kDefaultLinger{50};

  MetricsReporter(int64_t trial_id, int64_t trial_run_id, PostFn post,
                  RetryPolicy retry = DefaultRetry(), std::chrono::milliseconds linger = kDefaultLinger);
  // Reports to the master at `master_url` with the allocation token, over a connection of its own.
  MetricsReporter(int64_t trial_id, int64_t trial_run_id, const std::string& master_url,
                  const std::string& allocation_token, RetryPolicy retry = DefaultRetry());
  // Close()s: waits for queued reports to be sent.
  ~MetricsReporter();
  MetricsReporter(const MetricsReporter&) = delete;
  MetricsReporter& operator=(const MetricsReporter&) = delete;

  // Queues one report, stamped with the current time. Returns InvalidArgument for a malformed
  // report (checked here, synchronously), FailedPrecondition after Close(), or the error of an
  // earlier report that failed in the background (each such error is returned once). Safe for
  // concurrent use.
  // The request body is built on the reporter's thread: the call only checks, copies and queues.
  absl::Status Report(const std::string& group, int64_t steps_completed, nlohmann::json metrics,
                      nlohmann::json batch_metrics);
  // Blocks until every report queued so far was sent or given up on; returns the first background
  // error not yet returned (and clears it).
  absl::Status Flush();
  // Flush(), then stops the thread. Idempotent.
  absl::Status Close();

  int64_t sent_count() const;

 private:
  struct Pending;
  void Run();
  absl::Status TakeErrorLocked();

  const int64_t trial_id_;
  const int64_t trial_run_id_;
  PostFn post_;
  RetryPolicy retry_;
  const std::chrono::milliseconds linger_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Pending>> queue_;  // guarded by mu_
  bool busy_ = false;                           // a report is being sent; guarded by mu_
  bool closing_ = false;                        // guarded by mu_
  int flushing_ = 0;                            // callers waiting in Flush(); guarded by mu_
  absl::Status error_;                          // first unreturned background error; guarded by mu_
  int64_t sent_ = 0;                            // guarded by mu_
  std::thread thread_;
};

}  // namespace det::harness

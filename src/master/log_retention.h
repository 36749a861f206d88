#pragma once
// Task log retention (master config retention_policy, upstream's log_retention_days): a worker thread
// deletes the logs of tasks that ended more than their retention's days ago, once at start and then
// on retention_policy.schedule. A trial's own log_retention_days (its experiment config's, or `det
// experiment set log-retention`) takes precedence over the master's default; -1 keeps them forever.
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/status/statusor.h"
#include "api/types.h"
#include "config/master_config.h"
#include "config/retention_schedule.h"
#include "master/db/store.h"

namespace det::master {

// Days left before the trial's logs are deleted (its own retention, else `default_days`): -1 when
// they are kept forever, all of them while it runs, 0 once they are due.
int RemainingRetentionDays(const api::Trial& trial, std::optional<int> default_days, WallTime now);

class LogRetention {
 public:
  // Starts the worker; InvalidArgument for a schedule RetentionSchedule refuses.
  static absl::StatusOr<std::unique_ptr<LogRetention>> Start(Store& store, const config::RetentionPolicyConfig& policy);
  ~LogRetention();  // stops the worker (a deletion under way finishes first)
  LogRetention(const LogRetention&) = delete;
  LogRetention& operator=(const LogRetention&) = delete;

  // One pass: deletes what expired by `now`; how many lines went.
  absl::StatusOr<int64_t> RunOnce(WallTime now);

 private:
  LogRetention(Store& store, std::optional<int> default_days, config::RetentionSchedule schedule);
  void Run();

  Store& store_;
  const std::optional<int> default_days_;
  const config::RetentionSchedule schedule_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace det::master

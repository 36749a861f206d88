#include "master/log_retention.h"

#include <spdlog/spdlog.h>

#include "common/status_macros.h"

namespace det::master {

int RemainingRetentionDays(const api::Trial& trial, std::optional<int> default_days, WallTime now) {
  const std::optional<int> days = trial.log_retention_days ? trial.log_retention_days : default_days;
  if (!days || *days < 0) return -1;
  if (!trial.end_time) return *days;
  const auto since_end = std::chrono::floor<std::chrono::days>(now - *trial.end_time).count();
  return static_cast<int>(std::max<int64_t>(0, *days - since_end));
}

absl::StatusOr<std::unique_ptr<LogRetention>> LogRetention::Start(Store& store,
                                                                  const config::RetentionPolicyConfig& policy) {
  ASSIGN_OR_RETURN(config::RetentionSchedule schedule, config::RetentionSchedule::Parse(policy.schedule));
  return std::unique_ptr<LogRetention>(new LogRetention(store, policy.log_retention_days, std::move(schedule)));
}

LogRetention::LogRetention(Store& store, std::optional<int> default_days, config::RetentionSchedule schedule)
    : store_(store), default_days_(default_days), schedule_(std::move(schedule)), worker_([this] { Run(); }) {}

LogRetention::~LogRetention() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

absl::StatusOr<int64_t> LogRetention::RunOnce(WallTime now) {
  ASSIGN_OR_RETURN(int64_t deleted, store_.DeleteExpiredTaskLogs(now, default_days_));
  if (deleted > 0) spdlog::info("log retention: deleted {} expired task log line(s)", deleted);
  return deleted;
}

void LogRetention::Run() {
  std::unique_lock lock(mu_);
  WallTime last = std::chrono::system_clock::now();
  while (!stopping_) {
    lock.unlock();
    if (absl::StatusOr<int64_t> done = RunOnce(std::chrono::system_clock::now()); !done.ok()) {
      spdlog::warn("log retention: deleting expired task logs failed, trying again at the next run: {}",
                   done.status().ToString());
    }
    lock.lock();
    const WallTime next = schedule_.NextRun(last);
    cv_.wait_until(lock, next, [this] { return stopping_; });
    last = std::max(next, std::chrono::system_clock::now());  // a long pass does not queue missed runs
  }
}

}  // namespace det::master

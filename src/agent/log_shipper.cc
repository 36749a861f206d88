#include "agent/log_shipper.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "spdlog/spdlog.h"

namespace det::agent {
namespace {

// Errors a retry cannot fix: the master understood and refused the batch.
bool IsPermanent(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnimplemented:
      return true;
    default:
      return false;
  }
}

}  // namespace

LogShipper::LogShipper(std::unique_ptr<LogSink> sink, std::string name, LogShipperOptions options)
    : sink_(std::move(sink)), name_(std::move(name)), options_(options) {
  thread_ = std::thread(&LogShipper::Run, this);
}

LogShipper::~LogShipper() { Close(); }

void LogShipper::Add(StdType type, std::string text) {
  WallTime now = std::chrono::system_clock::now();
  auto enqueued = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  if (closing_) return;
  uint64_t number = ++added_;
  if (queue_.size() >= options_.max_buffered) {
    if (overflowed_++ == 0) {
      spdlog::warn("task {}: {} log lines are waiting to be shipped; dropping new lines", name_,
                   queue_.size());
    }
    ++dropped_;
    return;
  }
  queue_.push_back(Queued{enqueued, number, LogLine{now, type, std::move(text)}});
  if (queue_.size() == 1 || queue_.size() >= options_.max_batch) wake_.notify_one();
}

void LogShipper::Close() {
  std::call_once(close_once_, [this] {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();
  });
}

uint64_t LogShipper::shipped() const {
  std::lock_guard lock(mu_);
  return shipped_;
}

uint64_t LogShipper::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void LogShipper::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    if (queue_.empty()) {
      if (closing_) break;
      wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      continue;
    }
    // The oldest queued line sets the deadline: no line waits longer than flush_interval (plus
    // however long the posts ahead of it take).
    auto deadline = queue_.front().enqueued + options_.flush_interval;
    wake_.wait_until(lock, deadline,
                     [this] { return closing_ || queue_.size() >= options_.max_batch; });
    size_t n = std::min(queue_.size(), options_.max_batch);
    std::vector<LogLine> batch;
    batch.reserve(n);
    uint64_t last = 0;
    for (size_t i = 0; i < n; ++i) {
      last = queue_.front().number;
      batch.push_back(std::move(queue_.front().line));
      queue_.pop_front();
    }
    if (overflowed_ > 0) {
      spdlog::warn("task {}: dropped {} log lines because too many were waiting", name_,
                   overflowed_);
      overflowed_ = 0;
    }
    lock.unlock();
    bool ok = Ship(batch);
    if (options_.on_handled) options_.on_handled(last);
    lock.lock();
    (ok ? shipped_ : dropped_) += batch.size();
  }
  if (overflowed_ > 0) {
    spdlog::warn("task {}: dropped {} log lines because too many were waiting", name_, overflowed_);
  }
}

bool LogShipper::Ship(const std::vector<LogLine>& batch) {
  auto delay = options_.first_retry_delay;
  int attempts = degraded_ ? 1 : std::max(1, options_.max_attempts);
  absl::Status status;
  for (int attempt = 1;; ++attempt) {
    status = sink_->Post(batch);
    if (status.ok()) {
      degraded_ = false;
      return true;
    }
    if (IsPermanent(status)) break;
    // While the task runs, a master that is away or cannot store logs is waited for (the queue
    // is bounded by max_buffered); once it ended, its exit report must not wait for ever.
    bool patient;
    {
      std::lock_guard lock(mu_);
      patient = !closing_;
    }
    if (!patient && attempt >= attempts) break;
    if (attempt == attempts) {
      spdlog::warn("task {}: the master does not take log lines ({}); holding them until it does",
                   name_, status.ToString());
    }
    spdlog::debug("task {}: shipping {} log lines failed (attempt {}): {}", name_, batch.size(),
                  attempt, status.ToString());
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, options_.max_retry_delay);
  }
  degraded_ = true;
  spdlog::warn("task {}: dropped {} log lines the master did not accept: {}", name_, batch.size(),
               status.ToString());
  return false;
}

}  // namespace det::agent

#include "harness/metrics_reporter.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "harness/metrics_body.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"

namespace det::harness {

struct MetricsReporter::Pending {
  std::string group;
  int64_t steps_completed = 0;
  nlohmann::json metrics;
  nlohmann::json batch_metrics;
  WallTime report_time;
};

RetryPolicy MetricsReporter::DefaultRetry() {
  return RetryPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(30000),
                     std::chrono::milliseconds(120000)};
}

MetricsReporter::MetricsReporter(int64_t trial_id, int64_t trial_run_id, PostFn post,
                                 RetryPolicy retry, std::chrono::milliseconds linger)
    : trial_id_(trial_id), trial_run_id_(trial_run_id), post_(std::move(post)), retry_(retry), linger_(linger) {
  thread_ = std::thread([this] { Run(); });
}

MetricsReporter::MetricsReporter(int64_t trial_id, int64_t trial_run_id,
                                 const std::string& master_url, const std::string& allocation_token,
                                 RetryPolicy retry)
    : MetricsReporter(
          trial_id, trial_run_id,
          // The reporter retries by itself, so its session must not.
          [session =
               std::make_shared<Session>(master_url, allocation_token, RetryPolicy::NoRetry())](
              const std::string& path, const nlohmann::json& body) {
            return session->Post(path, body).status();
          },
          retry) {}

MetricsReporter::~MetricsReporter() {
  absl::Status s = Close();
  if (!s.ok()) spdlog::warn("metrics reporter: {}", s.ToString());
}

absl::Status MetricsReporter::Report(const std::string& group, int64_t steps_completed,
                                     nlohmann::json metrics, nlohmann::json batch_metrics) {
  RETURN_IF_ERROR(CheckTrialMetrics(group, steps_completed, metrics, batch_metrics));
  auto p = std::make_unique<Pending>(Pending{.group = group,
                                             .steps_completed = steps_completed,
                                             .metrics = std::move(metrics),
                                             .batch_metrics = std::move(batch_metrics),
                                             .report_time = std::chrono::system_clock::now()});
  std::lock_guard<std::mutex> lock(mu_);
  if (closing_) return absl::FailedPreconditionError("metrics reporter: Report() after Close()");
  queue_.push_back(std::move(p));
  // The reporter waits for a first report, or lingers until the request is full; nobody else waits
  // for the queue to grow, so most reports wake no one (a wake-up costs the training loop a syscall).
  if (queue_.size() == 1 || queue_.size() == kMaxReportsPerRequest) cv_.notify_all();
  return TakeErrorLocked();
}

absl::Status MetricsReporter::TakeErrorLocked() {
  absl::Status s = error_;
  error_ = absl::OkStatus();
  return s;
}

absl::Status MetricsReporter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  ++flushing_;
  cv_.notify_all();
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
  --flushing_;
  return TakeErrorLocked();
}

absl::Status MetricsReporter::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return TakeErrorLocked();
}

int64_t MetricsReporter::sent_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sent_;
}

void MetricsReporter::Run() {
  const std::string path = TrialMetricsPath(trial_id_);
  const std::string batch_path = path + "/batch";
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing and drained
    // Lingers a little for more reports to join this request, unless someone waits for the queue.
    cv_.wait_for(lock, linger_, [this] { return closing_ || flushing_ > 0 || queue_.size() >= kMaxReportsPerRequest; });
    // Everything queued while the last request was out goes in one request (the master stores it in one
    // transaction), so a loop that reports often costs one POST per round trip, not one per report.
    std::vector<std::unique_ptr<Pending>> batch;
    while (!queue_.empty() && batch.size() < kMaxReportsPerRequest) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    busy_ = true;
    lock.unlock();

    std::vector<nlohmann::json> bodies;
    bodies.reserve(batch.size());
    for (const auto& p : batch) {
      // Checked by Report(), so building cannot fail.
      bodies.push_back(*BuildTrialMetricsBody(trial_id_, trial_run_id_, p->group, p->steps_completed,
                                              p->metrics, p->batch_metrics, p->report_time));
    }
    nlohmann::json body = bodies.size() == 1 ? std::move(bodies.front())
                                             : nlohmann::json{{"reports", std::move(bodies)}};
    const std::string& to = batch.size() == 1 ? path : batch_path;
    std::string what = batch.size() == 1
                           ? absl::StrCat(batch.front()->group, " metrics at step ", batch.front()->steps_completed)
                           : absl::StrCat(batch.size(), " metric reports (steps ", batch.front()->steps_completed,
                                          " to ", batch.back()->steps_completed, ")");
    absl::Status s;
    auto start = std::chrono::steady_clock::now();
    for (int attempt = 1;; ++attempt) {
      s = post_(to, body);
      if (s.ok() || !IsTransient(s)) break;
      auto delay = retry_.DelayBefore(attempt);
      if (std::chrono::steady_clock::now() + delay - start > retry_.max_elapsed) break;
      spdlog::warn("reporting {} failed ({}); retrying in {} ms", what, std::string(s.message()), delay.count());
      std::this_thread::sleep_for(delay);
    }

    lock.lock();
    busy_ = false;
    if (s.ok()) {
      sent_ += static_cast<int64_t>(batch.size());
    } else {
      spdlog::error("giving up on {}: {}", what, s.ToString());
      if (error_.ok()) error_ = absl::Status(s.code(), absl::StrCat("reporting ", what, ": ", s.message()));
    }
    cv_.notify_all();
  }
}

}  // namespace det::harness

#include "harness/metrics_reporter.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "harness/metrics_body.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"

namespace det::harness {

struct MetricsReporter::Pending {
  std::string group;
  int64_t steps_completed = 0;
  nlohmann::json body;
};

RetryPolicy MetricsReporter::DefaultRetry() {
  return RetryPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(30000),
                     std::chrono::milliseconds(120000)};
}

MetricsReporter::MetricsReporter(int64_t trial_id, int64_t trial_run_id, PostFn post,
                                 RetryPolicy retry)
    : trial_id_(trial_id), trial_run_id_(trial_run_id), post_(std::move(post)), retry_(retry) {
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
                                     const nlohmann::json& metrics,
                                     const nlohmann::json& batch_metrics) {
  ASSIGN_OR_RETURN(nlohmann::json body,
                   BuildTrialMetricsBody(trial_id_, trial_run_id_, group, steps_completed, metrics,
                                         batch_metrics, std::chrono::system_clock::now()));
  auto p = std::make_unique<Pending>();
  p->group = group;
  p->steps_completed = steps_completed;
  p->body = std::move(body);
  std::lock_guard<std::mutex> lock(mu_);
  if (closing_) return absl::FailedPreconditionError("metrics reporter: Report() after Close()");
  queue_.push_back(std::move(p));
  cv_.notify_all();
  return TakeErrorLocked();
}

absl::Status MetricsReporter::ReportJson(const std::string& group, int64_t steps_completed,
                                         const std::string& metrics_json,
                                         const std::string& batch_metrics_json) {
  auto metrics = ParseJson(metrics_json);
  if (!metrics.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics: not valid JSON: ", metrics.status().message()));
  }
  nlohmann::json batch;  // null
  if (!batch_metrics_json.empty()) {
    auto b = ParseJson(batch_metrics_json);
    if (!b.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch_metrics: not valid JSON: ", b.status().message()));
    }
    batch = std::move(*b);
  }
  return Report(group, steps_completed, *metrics, batch);
}

absl::Status MetricsReporter::TakeErrorLocked() {
  absl::Status s = error_;
  error_ = absl::OkStatus();
  return s;
}

absl::Status MetricsReporter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
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
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing and drained
    std::unique_ptr<Pending> p = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();

    absl::Status s;
    auto start = std::chrono::steady_clock::now();
    for (int attempt = 1;; ++attempt) {
      s = post_(path, p->body);
      if (s.ok() || !IsTransient(s)) break;
      auto delay = retry_.DelayBefore(attempt);
      if (std::chrono::steady_clock::now() + delay - start > retry_.max_elapsed) break;
      spdlog::warn("reporting {} metrics at step {} failed ({}); retrying in {} ms", p->group,
                   p->steps_completed, std::string(s.message()), delay.count());
      std::this_thread::sleep_for(delay);
    }

    lock.lock();
    busy_ = false;
    if (s.ok()) {
      ++sent_;
    } else {
      spdlog::error("giving up on {} metrics at step {}: {}", p->group, p->steps_completed,
                    s.ToString());
      if (error_.ok()) {
        error_ = absl::Status(s.code(), absl::StrCat("reporting ", p->group, " metrics at step ",
                                                     p->steps_completed, ": ", s.message()));
      }
    }
    cv_.notify_all();
  }
}

}  // namespace det::harness

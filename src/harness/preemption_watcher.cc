#include "harness/preemption_watcher.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "client/rest_client.h"
#include "spdlog/spdlog.h"

namespace det::harness {
namespace {

class RestPreemptionPoller : public PreemptionPoller {
 public:
  RestPreemptionPoller(const std::string& master_url, const std::string& token,
                       const std::string& allocation_id)
      : client_(master_url, client::Credentials{.user_token = "", .allocation_token = token}),
        path_(absl::StrCat("/api/v1/allocations/", client::UrlEncode(allocation_id),
                           "/signals/preemption?timeout_seconds=")) {}

  absl::StatusOr<bool> Poll(int timeout_seconds) override {
    client_.set_timeout_seconds(timeout_seconds + 10);
    auto r = client_.Get(absl::StrCat(path_, timeout_seconds));
    if (!r.ok()) return r.status();
    auto it = r->find("preempt");
    return it != r->end() && it->is_boolean() && it->get<bool>();
  }

  void Cancel() override { client_.Cancel(); }

 private:
  client::RestClient client_;
  std::string path_;
};

}  // namespace

std::unique_ptr<PreemptionPoller> MakeRestPreemptionPoller(const std::string& master_url,
                                                           const std::string& allocation_token,
                                                           const std::string& allocation_id) {
  return std::make_unique<RestPreemptionPoller>(master_url, allocation_token, allocation_id);
}

PreemptionWatcher::PreemptionWatcher(std::unique_ptr<PreemptionPoller> poller, Options options)
    : poller_(std::move(poller)), options_(options) {}

PreemptionWatcher::~PreemptionWatcher() { Stop(); }

void PreemptionWatcher::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

bool PreemptionWatcher::ShouldPreempt() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!started_) return false;
  cv_.wait(lock, [this] { return should_preempt_.has_value() || stopping_; });
  return should_preempt_.value_or(false);
}

void PreemptionWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  poller_->Cancel();
  if (thread_.joinable()) thread_.join();
}

void PreemptionWatcher::Run() {
  // A quick first answer, so that ShouldPreempt() does not wait on a long poll.
  absl::StatusOr<bool> first = poller_->Poll(0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!first.ok() && !stopping_) {
      spdlog::warn("initial preemption check failed (continuing): {}", first.status().ToString());
    }
    should_preempt_ = first.ok() && *first;
    cv_.notify_all();
  }
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_ || *should_preempt_) return;
    }
    absl::StatusOr<bool> r = poller_->Poll(options_.long_poll_seconds);
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    if (r.ok()) {
      should_preempt_ = *r;
      continue;
    }
    if (r.status().code() != absl::StatusCode::kDeadlineExceeded) {
      spdlog::warn("preemption check failed (retrying in {} ms): {}",
                   options_.error_backoff.count(), r.status().ToString());
      cv_.wait_for(lock, options_.error_backoff, [this] { return stopping_; });
    }
  }
}

}  // namespace det::harness

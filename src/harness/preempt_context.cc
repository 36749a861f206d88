#include "harness/preempt_context.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "client/rest_client.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"

namespace det::harness {

PreemptContext::PreemptContext(std::unique_ptr<PreemptionWatcher> watcher,
                               std::shared_ptr<Session> session, std::string allocation_id)
    : watcher_(std::move(watcher)),
      session_(std::move(session)),
      allocation_id_(std::move(allocation_id)) {}

std::unique_ptr<PreemptContext> PreemptContext::ForAllocation(std::shared_ptr<Session> session,
                                                              const std::string& allocation_id) {
  auto watcher = std::make_unique<PreemptionWatcher>(
      MakeRestPreemptionPoller(session->master_url(), session->allocation_token(), allocation_id));
  return std::make_unique<PreemptContext>(std::move(watcher), std::move(session), allocation_id);
}

void PreemptContext::Start() {
  bool chief = group_ == nullptr || group_->rank() == 0;
  if (watcher_ != nullptr && chief) watcher_->Start();
}

void PreemptContext::Close() {
  if (watcher_ != nullptr) watcher_->Stop();
}

bool PreemptContext::ShouldPreempt(bool auto_ack) {
  if (group_ != nullptr && group_->size() > 1) {
    bool mine = group_->rank() == 0 && ChiefShouldPreempt(auto_ack);
    absl::StatusOr<std::string> chiefs = group_->Broadcast(mine ? "1" : "0");
    if (!chiefs.ok()) {
      // The group broke (a worker or the chief died): stopping is the safe answer.
      spdlog::error("asking the chief whether to stop failed, stopping: {}", chiefs.status().ToString());
      return true;
    }
    return *chiefs == "1";
  }
  return ChiefShouldPreempt(auto_ack);
}

bool PreemptContext::ChiefShouldPreempt(bool auto_ack) {
  if (watcher_ == nullptr) return false;
  bool out = watcher_->ShouldPreempt();
  if (out && auto_ack) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ack_sent_) {
      absl::Status s = AcknowledgePreemptionSignal();
      if (s.ok()) {
        ack_sent_ = true;
      } else {
        spdlog::warn("acknowledging the preemption signal failed: {}", s.ToString());
      }
    }
  }
  return out;
}

absl::Status PreemptContext::AcknowledgePreemptionSignal() {
  if (session_ == nullptr) return absl::OkStatus();
  return session_
      ->Post(absl::StrCat("/api/v1/allocations/", client::UrlEncode(allocation_id_),
                          "/signals/ack_preemption"),
             nlohmann::json::object())
      .status();
}

}  // namespace det::harness

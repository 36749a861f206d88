#include "searcher/searcher_journal.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace det::searcher {
namespace {

using nlohmann::json;

// Event kinds, as written: short, because a search writes hundreds of thousands of them.
constexpr std::string_view kInitial = "initial";
constexpr std::string_view kCreated = "created";
constexpr std::string_view kValidation = "validation";
constexpr std::string_view kExitedEarly = "exited_early";
constexpr std::string_view kExited = "exited";
constexpr std::string_view kProgress = "progress";

constexpr size_t kMinEventBytesBetweenSnapshots = 64 << 10;

}  // namespace

void JournaledSearcher::Record(json event) { events_.push_back(event.dump()); }

std::vector<Action> JournaledSearcher::InitialActions() {
  Record({{"e", kInitial}});
  return inner_->InitialActions();
}

void JournaledSearcher::TrialCreated(const std::string& request_id) {
  Record({{"e", kCreated}, {"r", request_id}});
  inner_->TrialCreated(request_id);
}

absl::StatusOr<std::vector<Action>> JournaledSearcher::ValidationCompleted(const std::string& request_id,
                                                                           const json& metrics) {
  // Recorded even when refused: replaying it is refused the same way.
  Record({{"e", kValidation}, {"r", request_id}, {"m", metrics}});
  return inner_->ValidationCompleted(request_id, metrics);
}

std::vector<Action> JournaledSearcher::TrialExitedEarly(const std::string& request_id, ExitReason reason) {
  Record({{"e", kExitedEarly}, {"r", request_id}, {"why", static_cast<int>(reason)}});
  return inner_->TrialExitedEarly(request_id, reason);
}

std::vector<Action> JournaledSearcher::TrialExited(const std::string& request_id) {
  Record({{"e", kExited}, {"r", request_id}});
  return inner_->TrialExited(request_id);
}

void JournaledSearcher::TrialProgress(const std::string& request_id, double progress) {
  Record({{"e", kProgress}, {"r", request_id}, {"p", progress}});
  inner_->TrialProgress(request_id, progress);
}

std::vector<std::string> JournaledSearcher::TakeEvents() { return std::exchange(events_, {}); }

absl::Status JournaledSearcher::Replay(std::string_view text) {
  const json event = json::parse(text, nullptr, false);
  auto bad = [&](std::string_view why) {
    return absl::DataLossError(
        absl::StrCat("searcher event ", std::string(text.substr(0, 200)), ": ", std::string(why)));
  };
  if (!event.is_object() || !event.value("e", json()).is_string()) return bad("not an event");
  const std::string kind = event["e"].get<std::string>();
  if (kind == kInitial) {
    (void)inner_->InitialActions();
    return absl::OkStatus();
  }
  const json& request = event.value("r", json());
  if (!request.is_string()) return bad("no request id");
  const std::string request_id = request.get<std::string>();
  if (kind == kCreated) {
    inner_->TrialCreated(request_id);
  } else if (kind == kValidation) {
    (void)inner_->ValidationCompleted(request_id, event.value("m", json()));  // a refusal was refused live too
  } else if (kind == kExitedEarly) {
    const json& why = event.value("why", json());
    const int reason = why.is_number_integer() ? why.get<int>() : -1;
    if (reason < static_cast<int>(ExitReason::kErrored) || reason > static_cast<int>(ExitReason::kInvalidHP)) {
      return bad("unknown exit reason");
    }
    (void)inner_->TrialExitedEarly(request_id, static_cast<ExitReason>(reason));
  } else if (kind == kExited) {
    (void)inner_->TrialExited(request_id);
  } else if (kind == kProgress) {
    const json& progress = event.value("p", json());
    if (!progress.is_number()) return bad("no progress");
    inner_->TrialProgress(request_id, progress.get<double>());
  } else {
    return bad("unknown kind");
  }
  return absl::OkStatus();
}

bool SnapshotDue(size_t last_snapshot_bytes, size_t event_bytes_since_snapshot) {
  if (last_snapshot_bytes == 0) return true;
  return event_bytes_since_snapshot > std::max(last_snapshot_bytes, kMinEventBytesBetweenSnapshots);
}

}  // namespace det::searcher

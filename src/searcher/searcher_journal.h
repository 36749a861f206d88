#pragma once
// A search persisted as an occasional snapshot plus the small events given to the searcher since.
// A searcher is pure (searcher.h): the snapshot restored and the same events replayed in the same
// order give the same searcher, so the master writes each event (tens of bytes) instead of the
// whole state (39 MB for a 100,000-trial adaptive ASHA) and writes a snapshot only when the events
// since the last one outweigh it.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "searcher/searcher.h"

namespace det::searcher {

// A Searcher that records every event it is given (InitialActions included: it draws trials).
class JournaledSearcher final : public Searcher {
 public:
  explicit JournaledSearcher(std::unique_ptr<Searcher> inner) : inner_(std::move(inner)) {}

  std::vector<Action> InitialActions() override;
  void TrialCreated(const std::string& request_id) override;
  absl::StatusOr<std::vector<Action>> ValidationCompleted(const std::string& request_id,
                                                          const nlohmann::json& metrics) override;
  std::vector<Action> TrialExitedEarly(const std::string& request_id, ExitReason reason) override;
  std::vector<Action> TrialExited(const std::string& request_id) override;
  void TrialProgress(const std::string& request_id, double progress) override;
  double Progress() const override { return inner_->Progress(); }
  nlohmann::json Snapshot() const override { return inner_->Snapshot(); }

  // The events recorded since the last call, oldest first, each a JSON object's text.
  std::vector<std::string> TakeEvents();
  // Gives the searcher an event TakeEvents() returned, without recording it; its actions were
  // carried out when it was first given. A text that is not such an event is DataLoss.
  absl::Status Replay(std::string_view event);

 private:
  void Record(nlohmann::json event);

  std::unique_ptr<Searcher> inner_;
  std::vector<std::string> events_;
};

// Whether to write a snapshot rather than more events: always before the first snapshot, then once
// the events written since the last snapshot are larger than it (and than 64 KiB), so that a search
// writes each event's bytes about twice in all and a restart replays at most one snapshot's worth.
bool SnapshotDue(size_t last_snapshot_bytes, size_t event_bytes_since_snapshot);

}  // namespace det::searcher

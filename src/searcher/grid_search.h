#pragma once
// `grid` (reference §5.2): one trial per grid point, created from the end of the product list, at
// most max_concurrent_trials at a time; no replacement for trials that exit early.
#include <string>
#include <vector>

#include "searcher/search_method.h"

namespace det::searcher {

class GridSearch : public SearchMethod {
 public:
  GridSearch(std::vector<nlohmann::json> grid, int max_concurrent_trials)
      : grid_(std::move(grid)),
        remaining_(grid_.size()),
        max_concurrent_trials_(max_concurrent_trials) {}

  std::vector<Action> InitialTrials(SearchContext& ctx) override;
  void TrialCreated(SearchContext&, const std::string&) override {}
  absl::StatusOr<std::vector<Action>> ValidationCompleted(SearchContext&, const std::string&,
                                                          const nlohmann::json&) override {
    return std::vector<Action>{};
  }
  std::vector<Action> TrialExitedEarly(SearchContext&, const std::string&, ExitReason) override {
    return {};
  }
  std::vector<Action> TrialExited(SearchContext& ctx, const std::string& request_id) override;
  double Progress(const TrialProgressSummary& trials) const override;
  std::string Type() const override { return "grid"; }
  // The grid itself is rebuilt from the config; only the number of points not yet created is saved.
  nlohmann::json Snapshot() const override;
  absl::Status Restore(const nlohmann::json& state) override;

 private:
  Action Pop(SearchContext& ctx);

  std::vector<nlohmann::json> grid_;
  size_t remaining_;  // grid_[0 .. remaining_) are not created yet
  int max_concurrent_trials_;
};

}  // namespace det::searcher

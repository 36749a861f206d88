#pragma once
// `random` and `single` (reference §5.3): max_trials trials with sampled hyperparameters, at most
// max_concurrent_trials at a time; a trial's exit makes room for the next one.
#include <string>

#include "searcher/search_method.h"

namespace det::searcher {

// Progress shared by random and grid: trials.sum divided by the number of trials, or by
// `planned_trials` while fewer than that have been created. (Upstream divides by the created count
// alone, which reports 100% as soon as the first of several sequential trials ends.)
double MeanTrialProgress(const TrialProgressSummary& trials, size_t planned_trials);

class RandomSearch : public SearchMethod {
 public:
  // `type` is "random" or "single" (single: max_trials = max_concurrent_trials = 1).
  RandomSearch(std::string type, int max_trials, int max_concurrent_trials)
      : type_(std::move(type)),
        max_trials_(max_trials),
        max_concurrent_trials_(max_concurrent_trials) {}

  std::vector<Action> InitialTrials(SearchContext& ctx) override;
  void TrialCreated(SearchContext&, const std::string&) override {}
  absl::StatusOr<std::vector<Action>> ValidationCompleted(SearchContext&, const std::string&,
                                                          const nlohmann::json&) override {
    return std::vector<Action>{};
  }
  // Invalid hyperparameters don't count against max_trials: the following TrialExited replaces the
  // trial.
  std::vector<Action> TrialExitedEarly(SearchContext& ctx, const std::string& request_id,
                                       ExitReason reason) override;
  std::vector<Action> TrialExited(SearchContext& ctx, const std::string& request_id) override;
  double Progress(const TrialProgressSummary& trials) const override;
  std::string Type() const override { return type_; }
  nlohmann::json Snapshot() const override;
  absl::Status Restore(const nlohmann::json& state) override;

 private:
  std::string type_;
  int max_trials_;
  int max_concurrent_trials_;
  int created_trials_ = 0;
  int pending_trials_ = 0;
};

}  // namespace det::searcher

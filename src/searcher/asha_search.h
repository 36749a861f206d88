#pragma once
// `async_halving`: asynchronous successive halving that stops the worse trials of each rung
// (upstream asha_stopping.go, reference §5.4). Also one bracket of `adaptive_asha`.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "searcher/rung.h"
#include "searcher/search_method.h"

namespace det::searcher {

struct AshaParams {
  int num_rungs = 1;
  int max_trials = 1;
  double divisor = 4;
  int max_concurrent_trials = 0;  // 0: divisor^(num_rungs-1), capped by max_trials
  uint64_t max_time = 1;          // L, in time_metric units
  std::string metric;
  std::string time_metric;
  bool smaller_is_better = true;
};

// units_needed[i] = max(floor(L / divisor^(num_rungs-i-1)), 1).
std::vector<uint64_t> AshaRungUnits(int num_rungs, double divisor, uint64_t max_time);
// How many trials the bracket starts with (reference §5.4 "Concurrency / initial trials").
int AshaInitialTrials(const AshaParams& params);

class AshaSearch : public SearchMethod {
 public:
  explicit AshaSearch(AshaParams params);

  std::vector<Action> InitialTrials(SearchContext& ctx) override;
  void TrialCreated(SearchContext& ctx, const std::string& request_id) override;
  // Needs the time metric as a number too (InvalidArgument naming it otherwise).
  absl::StatusOr<std::vector<Action>> ValidationCompleted(SearchContext& ctx,
                                                          const std::string& request_id,
                                                          const nlohmann::json& metrics) override;
  std::vector<Action> TrialExitedEarly(SearchContext& ctx, const std::string& request_id,
                                       ExitReason reason) override;
  std::vector<Action> TrialExited(SearchContext& ctx, const std::string& request_id) override;
  double Progress(const TrialProgressSummary& trials) const override;
  std::string Type() const override { return "asha"; }
  nlohmann::json Snapshot() const override;
  absl::Status Restore(const nlohmann::json& state) override;

  const AshaParams& params() const { return params_; }

 private:
  // Records the metric in the rungs the trial qualifies for; returns a Stop if it is done.
  std::vector<Action> StopTrial(const std::string& request_id, uint64_t time_step, double metric);
  int AllTrials() const { return static_cast<int>(trial_rungs_.size()) - invalid_trials_; }

  AshaParams params_;
  std::vector<Rung> rungs_;
  std::unordered_map<std::string, int> trial_rungs_;  // every created trial -> its current rung
  std::unordered_set<std::string> early_exit_trials_;
  int trials_completed_ = 0;
  int invalid_trials_ = 0;
};

}  // namespace det::searcher

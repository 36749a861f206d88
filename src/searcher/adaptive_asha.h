#pragma once
// `adaptive_asha`: a tournament of async_halving brackets with different rung counts (upstream
// adaptive_asha.go + tournament.go, reference §5.5). Events are routed to the bracket that created
// the trial.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "searcher/asha_search.h"
#include "searcher/searcher_config.h"

namespace det::searcher {

// The brackets an adaptive_asha config runs, most rungs first, each as async_halving parameters.
std::vector<AshaParams> AdaptiveAshaBrackets(const SearcherConfig& config);

class AdaptiveAshaSearch : public SearchMethod {
 public:
  explicit AdaptiveAshaSearch(const SearcherConfig& config);

  std::vector<Action> InitialTrials(SearchContext& ctx) override;
  void TrialCreated(SearchContext& ctx, const std::string& request_id) override;
  absl::StatusOr<std::vector<Action>> ValidationCompleted(SearchContext& ctx,
                                                          const std::string& request_id,
                                                          const nlohmann::json& metrics) override;
  std::vector<Action> TrialExitedEarly(SearchContext& ctx, const std::string& request_id,
                                       ExitReason reason) override;
  std::vector<Action> TrialExited(SearchContext& ctx, const std::string& request_id) override;
  // Mean of the brackets' progress.
  double Progress(const TrialProgressSummary& trials) const override;
  std::string Type() const override { return "adaptive_asha"; }
  nlohmann::json Snapshot() const override;
  absl::Status Restore(const nlohmann::json& state) override;

 private:
  // The bracket of a trial; unknown IDs go to bracket 0 like upstream's zero-valued map lookup.
  AshaSearch& BracketOf(const std::string& request_id);
  std::vector<Action> Mark(size_t bracket, std::vector<Action> actions);

  std::vector<std::unique_ptr<AshaSearch>> brackets_;
  std::unordered_map<std::string, size_t> trial_table_;
};

}  // namespace det::searcher

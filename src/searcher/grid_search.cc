#include "searcher/grid_search.h"

#include <algorithm>

#include "searcher/random_search.h"

namespace det::searcher {

Action GridSearch::Pop(SearchContext& ctx) {
  --remaining_;
  return NewCreate(ctx, grid_[remaining_]);
}

std::vector<Action> GridSearch::InitialTrials(SearchContext& ctx) {
  size_t n = grid_.size();
  if (max_concurrent_trials_ > 0) n = std::min(n, static_cast<size_t>(max_concurrent_trials_));
  std::vector<Action> actions;
  for (size_t i = 0; i < n && remaining_ > 0; ++i) actions.push_back(Pop(ctx));
  return actions;
}

std::vector<Action> GridSearch::TrialExited(SearchContext& ctx, const std::string&) {
  if (remaining_ == 0) return {};
  return {Pop(ctx)};
}

double GridSearch::Progress(const TrialProgressSummary& trials) const {
  return MeanTrialProgress(trials, grid_.size());
}

nlohmann::json GridSearch::Snapshot() const {
  return {{"search_method_type", Type()}, {"remaining", remaining_}, {"grid_size", grid_.size()}};
}

absl::Status GridSearch::Restore(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("remaining") ||
      !state["remaining"].is_number_unsigned() || !state.contains("grid_size") ||
      !state["grid_size"].is_number_unsigned() ||
      state["grid_size"].get<size_t>() != grid_.size() ||
      state["remaining"].get<size_t>() > grid_.size()) {
    return absl::InvalidArgumentError("searcher snapshot: grid state does not match the grid");
  }
  remaining_ = state["remaining"].get<size_t>();
  return absl::OkStatus();
}

}  // namespace det::searcher

#include "searcher/random_search.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace det::searcher {

double MeanTrialProgress(const TrialProgressSummary& trials, size_t planned_trials) {
  size_t n = std::max(trials.trials, planned_trials);
  return n == 0 ? 0.0 : trials.sum / static_cast<double>(n);
}

std::vector<Action> RandomSearch::InitialTrials(SearchContext& ctx) {
  int n = max_trials_;
  if (max_concurrent_trials_ > 0) n = std::min(n, max_concurrent_trials_);
  std::vector<Action> actions;
  for (int i = 0; i < n; ++i) {
    actions.push_back(NewRandomCreate(ctx));
    ++created_trials_;
    ++pending_trials_;
  }
  return actions;
}

std::vector<Action> RandomSearch::TrialExitedEarly(SearchContext&, const std::string&,
                                                   ExitReason reason) {
  if (reason == ExitReason::kInvalidHP) --created_trials_;
  return {};
}

std::vector<Action> RandomSearch::TrialExited(SearchContext& ctx, const std::string&) {
  --pending_trials_;
  if (created_trials_ >= max_trials_) return {};
  ++created_trials_;
  ++pending_trials_;
  return {NewRandomCreate(ctx)};
}

double RandomSearch::Progress(const TrialProgressSummary& trials) const {
  return MeanTrialProgress(trials, static_cast<size_t>(max_trials_));
}

nlohmann::json RandomSearch::Snapshot() const {
  return {{"search_method_type", type_},
          {"created_trials", created_trials_},
          {"pending_trials", pending_trials_}};
}

absl::Status RandomSearch::Restore(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("created_trials") ||
      !state["created_trials"].is_number_integer() || !state.contains("pending_trials") ||
      !state["pending_trials"].is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("searcher snapshot: malformed ", type_, " state"));
  }
  created_trials_ = state["created_trials"].get<int>();
  pending_trials_ = state["pending_trials"].get<int>();
  return absl::OkStatus();
}

}  // namespace det::searcher

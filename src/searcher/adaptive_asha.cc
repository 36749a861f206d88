#include "searcher/adaptive_asha.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::searcher {
namespace {

std::vector<int> BracketRungs(const SearcherConfig& c) {
  std::vector<int> brackets = c.bracket_rungs;
  if (brackets.empty()) {
    int max_rungs = c.max_rungs;
    max_rungs = std::min(
        max_rungs,
        static_cast<int>(std::log(static_cast<double>(c.max_time)) / std::log(c.divisor)) + 1);
    max_rungs = std::min(
        max_rungs,
        static_cast<int>(std::log(static_cast<double>(c.max_trials)) / std::log(c.divisor)) + 1);
    max_rungs = std::max(max_rungs, 1);
    if (c.mode == "aggressive") {
      brackets = {max_rungs};
    } else if (c.mode == "conservative") {
      for (int i = 1; i <= max_rungs; ++i) brackets.push_back(i);
    } else {
      for (int i = (max_rungs - 1) / 2 + 1; i <= max_rungs; ++i) brackets.push_back(i);
    }
  }
  std::sort(brackets.begin(), brackets.end(), std::greater<int>());
  return brackets;
}

std::vector<int> BracketMaxTrials(int max_trials, double divisor,
                                  const std::vector<int>& brackets) {
  std::vector<double> weight;
  double total = 0;
  for (int rungs : brackets) {
    weight.push_back(std::pow(divisor, static_cast<double>(rungs - 1)) /
                     static_cast<double>(rungs));
    total += weight.back();
  }
  std::vector<int> trials;
  int allocated = 0;
  for (double w : weight) {
    trials.push_back(std::max(static_cast<int>(w / total * static_cast<double>(max_trials)), 1));
    allocated += trials.back();
  }
  trials[0] += std::max(max_trials - allocated, 0);
  return trials;
}

std::vector<int> BracketMaxConcurrentTrials(int max_concurrent_trials, double divisor,
                                            const std::vector<int>& max_trials) {
  int n = static_cast<int>(max_trials.size());
  int each = 0, remainder = 0;
  if (max_concurrent_trials == 0) {
    each = std::max(max_trials.back(), static_cast<int>(divisor));
  } else {
    int m = std::max(max_concurrent_trials, n);
    each = m / n;
    remainder = m % n;
  }
  std::vector<int> out(static_cast<size_t>(n), each);
  for (int i = 0; i < remainder; ++i) ++out[static_cast<size_t>(i)];
  return out;
}

}  // namespace

std::vector<AshaParams> AdaptiveAshaBrackets(const SearcherConfig& c) {
  std::vector<int> rungs = BracketRungs(c);
  std::vector<int> trials = BracketMaxTrials(c.max_trials, c.divisor, rungs);
  std::vector<int> concurrency =
      BracketMaxConcurrentTrials(c.max_concurrent_trials, c.divisor, trials);
  std::vector<AshaParams> out;
  for (size_t i = 0; i < rungs.size(); ++i) {
    out.push_back(AshaParams{.num_rungs = rungs[i],
                             .max_trials = trials[i],
                             .divisor = c.divisor,
                             .max_concurrent_trials = concurrency[i],
                             .max_time = c.max_time,
                             .metric = c.metric,
                             .time_metric = c.time_metric,
                             .smaller_is_better = c.smaller_is_better});
  }
  return out;
}

AdaptiveAshaSearch::AdaptiveAshaSearch(const SearcherConfig& config) {
  for (AshaParams& p : AdaptiveAshaBrackets(config)) {
    brackets_.push_back(std::make_unique<AshaSearch>(std::move(p)));
  }
}

std::vector<Action> AdaptiveAshaSearch::Mark(size_t bracket, std::vector<Action> actions) {
  for (const Action& a : actions) {
    if (a.kind == Action::Kind::kCreateTrial) trial_table_[a.request_id] = bracket;
  }
  return actions;
}

AshaSearch& AdaptiveAshaSearch::BracketOf(const std::string& request_id) {
  auto it = trial_table_.find(request_id);
  return *brackets_[it == trial_table_.end() ? 0 : it->second];
}

std::vector<Action> AdaptiveAshaSearch::InitialTrials(SearchContext& ctx) {
  std::vector<Action> actions;
  for (size_t i = 0; i < brackets_.size(); ++i) {
    for (Action& a : Mark(i, brackets_[i]->InitialTrials(ctx))) actions.push_back(std::move(a));
  }
  return actions;
}

void AdaptiveAshaSearch::TrialCreated(SearchContext& ctx, const std::string& request_id) {
  BracketOf(request_id).TrialCreated(ctx, request_id);
}

absl::StatusOr<std::vector<Action>> AdaptiveAshaSearch::ValidationCompleted(
    SearchContext& ctx, const std::string& request_id, const nlohmann::json& metrics) {
  auto it = trial_table_.find(request_id);
  size_t b = it == trial_table_.end() ? 0 : it->second;
  ASSIGN_OR_RETURN(std::vector<Action> actions,
                   brackets_[b]->ValidationCompleted(ctx, request_id, metrics));
  return Mark(b, std::move(actions));
}

std::vector<Action> AdaptiveAshaSearch::TrialExitedEarly(SearchContext& ctx,
                                                         const std::string& request_id,
                                                         ExitReason reason) {
  auto it = trial_table_.find(request_id);
  size_t b = it == trial_table_.end() ? 0 : it->second;
  return Mark(b, brackets_[b]->TrialExitedEarly(ctx, request_id, reason));
}

std::vector<Action> AdaptiveAshaSearch::TrialExited(SearchContext& ctx,
                                                    const std::string& request_id) {
  return BracketOf(request_id).TrialExited(ctx, request_id);
}

double AdaptiveAshaSearch::Progress(const TrialProgressSummary& trials) const {
  double sum = 0;
  for (const auto& b : brackets_) sum += b->Progress(trials);
  return sum / static_cast<double>(brackets_.size());
}

nlohmann::json AdaptiveAshaSearch::Snapshot() const {
  nlohmann::json subs = nlohmann::json::array();
  for (const auto& b : brackets_) subs.push_back(b->Snapshot());
  return {{"search_method_type", Type()},
          {"trial_table", std::map<std::string, size_t>(trial_table_.begin(), trial_table_.end())},
          {"sub_search_states", std::move(subs)}};
}

absl::Status AdaptiveAshaSearch::Restore(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("sub_search_states") ||
      !state["sub_search_states"].is_array() ||
      state["sub_search_states"].size() != brackets_.size()) {
    return absl::InvalidArgumentError("searcher snapshot: adaptive_asha has the wrong brackets");
  }
  std::unordered_map<std::string, size_t> table;
  try {
    table = state.at("trial_table").get<std::unordered_map<std::string, size_t>>();
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("searcher snapshot: trial_table: ", e.what()));
  }
  for (const auto& [id, b] : table) {
    if (b >= brackets_.size()) return absl::InvalidArgumentError("searcher snapshot: bad bracket");
  }
  for (size_t i = 0; i < brackets_.size(); ++i) {
    RETURN_IF_ERROR(brackets_[i]->Restore(state["sub_search_states"][i]));
  }
  trial_table_ = std::move(table);
  return absl::OkStatus();
}

}  // namespace det::searcher

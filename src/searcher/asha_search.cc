#include "searcher/asha_search.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::searcher {

std::vector<uint64_t> AshaRungUnits(int num_rungs, double divisor, uint64_t max_time) {
  std::vector<uint64_t> units;
  for (int i = 0; i < num_rungs; ++i) {
    double rate = std::pow(divisor, static_cast<double>(num_rungs - i - 1));
    double u = std::floor(static_cast<double>(max_time) / rate);
    units.push_back(std::max<uint64_t>(u >= 1.0 ? static_cast<uint64_t>(u) : 0, 1));
  }
  return units;
}

int AshaInitialTrials(const AshaParams& p) {
  if (p.max_concurrent_trials > 0) return std::min(p.max_concurrent_trials, p.max_trials);
  double full = std::pow(p.divisor, static_cast<double>(p.num_rungs - 1));
  if (!(full < static_cast<double>(p.max_trials))) return p.max_trials;
  return std::max(static_cast<int>(full), 1);
}

AshaSearch::AshaSearch(AshaParams params) : params_(std::move(params)) {
  for (uint64_t u : AshaRungUnits(params_.num_rungs, params_.divisor, params_.max_time)) {
    rungs_.emplace_back(u);
  }
}

std::vector<Action> AshaSearch::InitialTrials(SearchContext& ctx) {
  std::vector<Action> actions;
  int n = AshaInitialTrials(params_);
  for (int i = 0; i < n; ++i) actions.push_back(NewRandomCreate(ctx));
  return actions;
}

void AshaSearch::TrialCreated(SearchContext&, const std::string& request_id) {
  trial_rungs_[request_id] = 0;
}

absl::StatusOr<std::vector<Action>> AshaSearch::ValidationCompleted(SearchContext& ctx,
                                                                    const std::string& request_id,
                                                                    const nlohmann::json& metrics) {
  auto m = metrics.find(params_.metric);
  if (m == metrics.end() || !m->is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validation metrics for trial request ", request_id,
                     " do not include the searcher metric \"", params_.metric, "\""));
  }
  auto t = metrics.find(params_.time_metric);
  if (t == metrics.end() || !t->is_number()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "validation metrics for trial request ", request_id, " do not include the time metric \"",
        params_.time_metric, "\" (searcher.time_metric)"));
  }
  double value = m->get<double>();
  if (!params_.smaller_is_better) value = -value;
  double time = t->get<double>();
  uint64_t step = time >= 1.0 ? (time >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(time)) : 0;

  std::vector<Action> actions = StopTrial(request_id, step, value);
  if (!actions.empty() && AllTrials() < params_.max_trials) actions.push_back(NewRandomCreate(ctx));
  return actions;
}

std::vector<Action> AshaSearch::StopTrial(const std::string& request_id, uint64_t time_step,
                                          double metric) {
  int& trial_rung = trial_rungs_[request_id];
  for (int r = trial_rung; r < params_.num_rungs; ++r) {
    Rung& rung = rungs_[static_cast<size_t>(r)];
    trial_rung = r;
    if (time_step < rung.units_needed()) return {};
    size_t index = rung.Insert(request_id, metric);
    if (r == params_.num_rungs - 1) return {NewStop(request_id)};
    size_t num_continue = std::max<size_t>(
        static_cast<size_t>(static_cast<double>(rung.size()) / params_.divisor), 1);
    if (index >= num_continue) return {NewStop(request_id)};
  }
  return {};
}

std::vector<Action> AshaSearch::TrialExitedEarly(SearchContext& ctx, const std::string& request_id,
                                                 ExitReason reason) {
  early_exit_trials_.insert(request_id);
  int rung_index = trial_rungs_[request_id];
  if (reason == ExitReason::kInvalidHP) {
    std::vector<Action> actions{NewStop(request_id)};
    ++invalid_trials_;
    for (int r = 0; r <= rung_index; ++r) rungs_[static_cast<size_t>(r)].Remove(request_id);
    actions.push_back(NewRandomCreate(ctx));
    return actions;
  }
  rungs_[static_cast<size_t>(rung_index)].Insert(request_id, DBL_MAX);
  if (AllTrials() < params_.max_trials) return {NewRandomCreate(ctx)};
  return {};
}

std::vector<Action> AshaSearch::TrialExited(SearchContext&, const std::string&) {
  ++trials_completed_;
  return {};
}

double AshaSearch::Progress(const TrialProgressSummary&) const {
  double n0 = static_cast<double>(rungs_[0].size());
  double max_trials = static_cast<double>(params_.max_trials);
  double progress = n0 / (1.2 * max_trials);
  if (static_cast<int>(rungs_[0].size()) == params_.max_trials) {
    progress = std::max(progress, (trials_completed_ - invalid_trials_) / max_trials);
  }
  return progress;
}

nlohmann::json AshaSearch::Snapshot() const {
  nlohmann::json rungs = nlohmann::json::array();
  for (const Rung& r : rungs_) rungs.push_back(r.ToJson());
  return {{"search_method_type", Type()},
          {"rungs", std::move(rungs)},
          {"trial_rungs", std::map<std::string, int>(trial_rungs_.begin(), trial_rungs_.end())},
          {"early_exit_trials",
           std::set<std::string>(early_exit_trials_.begin(), early_exit_trials_.end())},
          {"trials_completed", trials_completed_},
          {"invalid_trials", invalid_trials_}};
}

absl::Status AshaSearch::Restore(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("rungs") || !state["rungs"].is_array() ||
      state["rungs"].size() != rungs_.size()) {
    return absl::InvalidArgumentError("searcher snapshot: asha state has the wrong rungs");
  }
  std::vector<Rung> rungs;
  for (const auto& r : state["rungs"]) {
    ASSIGN_OR_RETURN(Rung rung, Rung::FromJson(r));
    rungs.push_back(std::move(rung));
  }
  try {
    auto trial_rungs = state.at("trial_rungs").get<std::unordered_map<std::string, int>>();
    for (const auto& [id, r] : trial_rungs) {
      if (r < 0 || r >= params_.num_rungs) {
        return absl::InvalidArgumentError("searcher snapshot: trial rung out of range");
      }
    }
    early_exit_trials_ = state.at("early_exit_trials").get<std::unordered_set<std::string>>();
    trials_completed_ = state.at("trials_completed").get<int>();
    invalid_trials_ = state.at("invalid_trials").get<int>();
    trial_rungs_ = std::move(trial_rungs);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("searcher snapshot: asha state: ", e.what()));
  }
  rungs_ = std::move(rungs);
  return absl::OkStatus();
}

}  // namespace det::searcher

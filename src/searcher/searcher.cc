#include "searcher/searcher.h"

#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "searcher/adaptive_asha.h"
#include "searcher/asha_search.h"
#include "searcher/grid.h"
#include "searcher/grid_search.h"
#include "searcher/hyperparameters.h"
#include "searcher/nprand.h"
#include "searcher/random_search.h"
#include "searcher/searcher_config.h"

namespace det::searcher {
namespace {

using nlohmann::json;

absl::StatusOr<std::unique_ptr<SearchMethod>> NewMethod(const SearcherConfig& c,
                                                        const Hyperparameters& hparams) {
  if (c.name == "single" || c.name == "random") {
    return std::make_unique<RandomSearch>(c.MethodType(), c.max_trials, c.max_concurrent_trials);
  }
  if (c.name == "grid") {
    ASSIGN_OR_RETURN(std::vector<json> grid, BuildGrid(hparams));
    return std::make_unique<GridSearch>(std::move(grid), c.max_concurrent_trials);
  }
  if (c.name == "async_halving") {
    return std::make_unique<AshaSearch>(AshaParams{.num_rungs = c.num_rungs,
                                                   .max_trials = c.max_trials,
                                                   .divisor = c.divisor,
                                                   .max_concurrent_trials = c.max_concurrent_trials,
                                                   .max_time = c.max_time,
                                                   .metric = c.metric,
                                                   .time_metric = c.time_metric,
                                                   .smaller_is_better = c.smaller_is_better});
  }
  return std::make_unique<AdaptiveAshaSearch>(c);
}

// Upstream's searcher.go bookkeeping around a SearchMethod (reference §5.1).
class SearcherImpl : public Searcher {
 public:
  SearcherImpl(SearcherConfig config, Hyperparameters hparams, uint32_t seed,
               std::unique_ptr<SearchMethod> method)
      : config_(std::move(config)),
        hparams_(std::move(hparams)),
        rand_(seed),
        method_(std::move(method)) {}

  std::vector<Action> InitialActions() override {
    if (initialized_) return {};
    initialized_ = true;
    SearchContext ctx = Context();
    std::vector<Action> actions = method_->InitialTrials(ctx);
    Record(actions);
    // A search with nothing to run would otherwise never end.
    if (trials_requested_ == 0) AppendShutdown(actions);
    return actions;
  }

  void TrialCreated(const std::string& request_id) override {
    if (!requested_.count(request_id)) return;
    if (!created_.insert(request_id).second) return;
    progress_[request_id] = 0.0;
    SearchContext ctx = Context();
    method_->TrialCreated(ctx, request_id);
  }

  absl::StatusOr<std::vector<Action>> ValidationCompleted(const std::string& request_id,
                                                          const json& metrics) override {
    if (!requested_.count(request_id) || stopped_.count(request_id) ||
        exits_.count(request_id) || closed_.count(request_id)) {
      return std::vector<Action>{};
    }
    if (!metrics.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "validation metrics for trial request ", request_id, " must be a JSON object"));
    }
    auto m = metrics.find(config_.metric);
    if (m == metrics.end() || !m->is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("validation metrics for trial request ", request_id,
                       " do not include the searcher metric \"", config_.metric, "\""));
    }
    SearchContext ctx = Context();
    ASSIGN_OR_RETURN(std::vector<Action> actions,
                     method_->ValidationCompleted(ctx, request_id, metrics));
    Record(actions);
    return actions;
  }

  std::vector<Action> TrialExitedEarly(const std::string& request_id,
                                       ExitReason reason) override {
    if (!requested_.count(request_id) || exits_.count(request_id) || closed_.count(request_id)) {
      return {};
    }
    switch (reason) {
      case ExitReason::kInvalidHP:
        progress_.erase(request_id);
        break;
      case ExitReason::kUserCanceled:
        cancels_.insert(request_id);
        break;
      case ExitReason::kErrored:
        failures_.insert(request_id);
        break;
    }
    SearchContext ctx = Context();
    std::vector<Action> actions = method_->TrialExitedEarly(ctx, request_id, reason);
    exits_.insert(request_id);
    Record(actions);
    if (trials_requested_ == static_cast<int64_t>(closed_.size())) AppendShutdown(actions);
    return actions;
  }

  std::vector<Action> TrialExited(const std::string& request_id) override {
    if (!requested_.count(request_id) || !closed_.insert(request_id).second) return {};
    SearchContext ctx = Context();
    std::vector<Action> actions = method_->TrialExited(ctx, request_id);
    Record(actions);
    if (trials_requested_ == static_cast<int64_t>(closed_.size())) AppendShutdown(actions);
    return actions;
  }

  void TrialProgress(const std::string& request_id, double progress) override {
    auto it = progress_.find(request_id);
    if (it == progress_.end() || !std::isfinite(progress)) return;
    it->second = std::clamp(progress, 0.0, 1.0);
  }

  double Progress() const override {
    if (shutdown_) return 1.0;
    double p = method_->Progress(progress_, closed_);
    if (!std::isfinite(p)) return 0.0;
    return std::clamp(p, 0.0, 1.0);
  }

  json Snapshot() const override {
    return {{"search_method_type", method_->Type()},
            {"initialized", initialized_},
            {"trials_requested", trials_requested_},
            {"trials_requested_ids", requested_},
            {"trials_created", created_},
            {"trials_closed", closed_},
            {"exits", exits_},
            {"cancels", cancels_},
            {"failures", failures_},
            {"stopped", stopped_},
            {"trial_progress", progress_},
            {"shutdown", shutdown_},
            {"rand", rand_.ToJson()},
            {"search_method_state", method_->Snapshot()}};
  }

  absl::Status RestoreFrom(const json& s) {
    if (!s.is_object()) return absl::InvalidArgumentError("searcher snapshot: must be an object");
    if (s.value("search_method_type", json()) != json(method_->Type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "searcher snapshot: search_method_type ", s.value("search_method_type", json()).dump(),
          " does not match the config's searcher (", method_->Type(), ")"));
    }
    try {
      initialized_ = s.at("initialized").get<bool>();
      trials_requested_ = s.at("trials_requested").get<int64_t>();
      requested_ = s.at("trials_requested_ids").get<std::set<std::string>>();
      created_ = s.at("trials_created").get<std::set<std::string>>();
      closed_ = s.at("trials_closed").get<std::set<std::string>>();
      exits_ = s.at("exits").get<std::set<std::string>>();
      cancels_ = s.at("cancels").get<std::set<std::string>>();
      failures_ = s.at("failures").get<std::set<std::string>>();
      stopped_ = s.at("stopped").get<std::set<std::string>>();
      progress_ = s.at("trial_progress").get<std::map<std::string, double>>();
      shutdown_ = s.at("shutdown").get<bool>();
    } catch (const json::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("searcher snapshot: ", e.what()));
    }
    if (!s.contains("rand") || !s.contains("search_method_state")) {
      return absl::InvalidArgumentError("searcher snapshot: rand and search_method_state required");
    }
    RETURN_IF_ERROR(rand_.FromJson(s["rand"]));
    return method_->Restore(s["search_method_state"]);
  }

 private:
  SearchContext Context() { return SearchContext{rand_, hparams_}; }

  void Record(const std::vector<Action>& actions) {
    for (const Action& a : actions) {
      switch (a.kind) {
        case Action::Kind::kCreateTrial:
          ++trials_requested_;
          requested_.insert(a.request_id);
          break;
        case Action::Kind::kStopTrial:
          stopped_.insert(a.request_id);
          break;
        case Action::Kind::kShutdown:
          shutdown_ = true;
          break;
      }
    }
  }

  void AppendShutdown(std::vector<Action>& actions) {
    if (shutdown_) return;
    int64_t n = trials_requested_;
    Action a{.kind = Action::Kind::kShutdown};
    a.cancel = n > 0 && static_cast<int64_t>(cancels_.size()) >= n;
    a.failure = n > 0 && static_cast<int64_t>(failures_.size()) >= n;
    actions.push_back(a);
    shutdown_ = true;
  }

  SearcherConfig config_;
  Hyperparameters hparams_;
  NpRandom rand_;
  std::unique_ptr<SearchMethod> method_;

  bool initialized_ = false;
  int64_t trials_requested_ = 0;
  std::set<std::string> requested_, created_, closed_, exits_, cancels_, failures_, stopped_;
  std::map<std::string, double> progress_;
  bool shutdown_ = false;
};

absl::StatusOr<std::unique_ptr<SearcherImpl>> Build(const json& config) {
  ASSIGN_OR_RETURN(SearcherConfig sc, ParseSearcherConfig(config));
  ASSIGN_OR_RETURN(Hyperparameters hparams,
                   ParseHyperparameters(config.is_object() ? config.value("hyperparameters", json())
                                                           : json()));
  ASSIGN_OR_RETURN(uint32_t seed, ExperimentSeed(config));
  ASSIGN_OR_RETURN(std::unique_ptr<SearchMethod> method, NewMethod(sc, hparams));
  return std::make_unique<SearcherImpl>(std::move(sc), std::move(hparams), seed, std::move(method));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Searcher>> Searcher::Create(const json& config) {
  ASSIGN_OR_RETURN(std::unique_ptr<SearcherImpl> s, Build(config));
  return std::unique_ptr<Searcher>(std::move(s));
}

absl::StatusOr<std::unique_ptr<Searcher>> Searcher::Restore(const json& config,
                                                            const json& snapshot) {
  ASSIGN_OR_RETURN(std::unique_ptr<SearcherImpl> s, Build(config));
  RETURN_IF_ERROR(s->RestoreFrom(snapshot));
  return std::unique_ptr<Searcher>(std::move(s));
}

}  // namespace det::searcher

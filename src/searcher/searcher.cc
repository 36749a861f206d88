#include "searcher/searcher.h"

#include <cmath>
#include <map>
#include <unordered_map>

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
    TrialState* t = Find(request_id);
    if (t == nullptr || t->created) return;
    t->created = true;
    progress_[request_id] = 0.0;
    SearchContext ctx = Context();
    method_->TrialCreated(ctx, request_id);
  }

  absl::StatusOr<std::vector<Action>> ValidationCompleted(const std::string& request_id,
                                                          const json& metrics) override {
    TrialState* t = Find(request_id);
    if (t == nullptr || t->stopped || t->exited || t->closed) return std::vector<Action>{};
    if (!metrics.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("validation metrics for trial request ",
                                                     request_id, " must be a JSON object"));
    }
    auto m = metrics.find(config_.metric);
    if (m == metrics.end() || !m->is_number()) {
      // single, grid and random decide nothing by the metric: a report without it changes nothing
      // (as upstream's); the halving searchers cannot rank the trial without it.
      if (config_.name == "single" || config_.name == "grid" || config_.name == "random") return std::vector<Action>{};
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

  std::vector<Action> TrialExitedEarly(const std::string& request_id, ExitReason reason) override {
    TrialState* t = Find(request_id);
    if (t == nullptr || t->exited || t->closed) return {};
    switch (reason) {
      case ExitReason::kInvalidHP:
        progress_.erase(request_id);
        break;
      case ExitReason::kUserCanceled:
        t->canceled = true;
        ++cancels_;
        break;
      case ExitReason::kErrored:
        t->failed = true;
        ++failures_;
        break;
    }
    SearchContext ctx = Context();
    std::vector<Action> actions = method_->TrialExitedEarly(ctx, request_id, reason);
    t = Find(request_id);  // Record() below may rehash
    t->exited = true;
    Record(actions);
    if (trials_requested_ == closed_) AppendShutdown(actions);
    return actions;
  }

  std::vector<Action> TrialExited(const std::string& request_id) override {
    TrialState* t = Find(request_id);
    if (t == nullptr || t->closed) return {};
    t->closed = true;
    ++closed_;
    SearchContext ctx = Context();
    std::vector<Action> actions = method_->TrialExited(ctx, request_id);
    Record(actions);
    if (trials_requested_ == closed_) AppendShutdown(actions);
    return actions;
  }

  void TrialProgress(const std::string& request_id, double progress) override {
    auto it = progress_.find(request_id);
    if (it == progress_.end() || !std::isfinite(progress)) return;
    it->second = std::clamp(progress, 0.0, 1.0);
  }

  double Progress() const override {
    if (shutdown_) return 1.0;
    TrialProgressSummary summary;
    for (const auto& [id, p] : progress_) {  // sorted: the same sum after a restore
      const TrialState* t = Find(id);
      summary.sum += t != nullptr && t->closed ? 1.0 : p;
      ++summary.trials;
    }
    double p = method_->Progress(summary);
    if (!std::isfinite(p)) return 0.0;
    return std::clamp(p, 0.0, 1.0);
  }

  json Snapshot() const override {
    // Sorted ID lists, so equal states give equal snapshots.
    std::map<std::string, const TrialState*> sorted;
    for (const auto& [id, t] : trials_) sorted.emplace(id, &t);
    json requested = json::array(), created = json::array(), closed = json::array(),
         exits = json::array(), cancels = json::array(), failures = json::array(),
         stopped = json::array();
    for (const auto& [id, t] : sorted) {
      requested.push_back(id);
      if (t->created) created.push_back(id);
      if (t->closed) closed.push_back(id);
      if (t->exited) exits.push_back(id);
      if (t->canceled) cancels.push_back(id);
      if (t->failed) failures.push_back(id);
      if (t->stopped) stopped.push_back(id);
    }
    return {{"search_method_type", method_->Type()},
            {"initialized", initialized_},
            {"trials_requested", trials_requested_},
            {"trials_requested_ids", std::move(requested)},
            {"trials_created", std::move(created)},
            {"trials_closed", std::move(closed)},
            {"exits", std::move(exits)},
            {"cancels", std::move(cancels)},
            {"failures", std::move(failures)},
            {"stopped", std::move(stopped)},
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
    std::unordered_map<std::string, TrialState> trials;
    int64_t closed = 0, cancels = 0, failures = 0;
    try {
      initialized_ = s.at("initialized").get<bool>();
      trials_requested_ = s.at("trials_requested").get<int64_t>();
      for (const auto& id : s.at("trials_requested_ids")) trials[id.get<std::string>()];
      auto mark = [&](const char* key, bool TrialState::*flag, int64_t* count) -> absl::Status {
        for (const auto& id : s.at(key)) {
          auto it = trials.find(id.get<std::string>());
          if (it == trials.end()) {
            return absl::InvalidArgumentError(
                absl::StrCat("searcher snapshot: ", key, " names an unrequested trial"));
          }
          it->second.*flag = true;
          if (count != nullptr) ++*count;
        }
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(mark("trials_created", &TrialState::created, nullptr));
      RETURN_IF_ERROR(mark("trials_closed", &TrialState::closed, &closed));
      RETURN_IF_ERROR(mark("exits", &TrialState::exited, nullptr));
      RETURN_IF_ERROR(mark("cancels", &TrialState::canceled, &cancels));
      RETURN_IF_ERROR(mark("failures", &TrialState::failed, &failures));
      RETURN_IF_ERROR(mark("stopped", &TrialState::stopped, nullptr));
      progress_ = s.at("trial_progress").get<std::map<std::string, double>>();
      shutdown_ = s.at("shutdown").get<bool>();
    } catch (const json::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("searcher snapshot: ", e.what()));
    }
    if (!s.contains("rand") || !s.contains("search_method_state")) {
      return absl::InvalidArgumentError("searcher snapshot: rand and search_method_state required");
    }
    RETURN_IF_ERROR(rand_.FromJson(s["rand"]));
    trials_ = std::move(trials);
    closed_ = closed;
    cancels_ = cancels;
    failures_ = failures;
    return method_->Restore(s["search_method_state"]);
  }

 private:
  // What the searcher knows about one requested trial.
  struct TrialState {
    bool created = false, closed = false, exited = false, canceled = false, failed = false,
         stopped = false;
  };

  SearchContext Context() { return SearchContext{rand_, hparams_}; }
  TrialState* Find(const std::string& id) {
    auto it = trials_.find(id);
    return it == trials_.end() ? nullptr : &it->second;
  }
  const TrialState* Find(const std::string& id) const {
    auto it = trials_.find(id);
    return it == trials_.end() ? nullptr : &it->second;
  }

  void Record(const std::vector<Action>& actions) {
    for (const Action& a : actions) {
      switch (a.kind) {
        case Action::Kind::kCreateTrial:
          ++trials_requested_;
          trials_[a.request_id];
          break;
        case Action::Kind::kStopTrial:
          if (TrialState* t = Find(a.request_id)) t->stopped = true;
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
    a.cancel = n > 0 && cancels_ >= n;
    a.failure = n > 0 && failures_ >= n;
    actions.push_back(a);
    shutdown_ = true;
  }

  SearcherConfig config_;
  Hyperparameters hparams_;
  NpRandom rand_;
  std::unique_ptr<SearchMethod> method_;

  bool initialized_ = false;
  int64_t trials_requested_ = 0;
  std::unordered_map<std::string, TrialState> trials_;  // every requested trial
  int64_t closed_ = 0, cancels_ = 0, failures_ = 0;
  std::map<std::string, double> progress_;  // created trials minus invalid-HP ones
  bool shutdown_ = false;
};

absl::StatusOr<std::unique_ptr<SearcherImpl>> Build(const json& config) {
  ASSIGN_OR_RETURN(SearcherConfig sc, ParseSearcherConfig(config));
  ASSIGN_OR_RETURN(
      Hyperparameters hparams,
      ParseHyperparameters(config.is_object() ? config.value("hyperparameters", json()) : json()));
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

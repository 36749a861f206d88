#include "master/experiment_rules.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "config/merge.h"
#include "master/metric_summary.h"
#include "master/model_rules.h"

namespace det::master {
namespace {

using api::ExperimentState;

constexpr ExperimentState kAllStates[] = {
    ExperimentState::kActive,         ExperimentState::kPaused,       ExperimentState::kStoppingCanceled,
    ExperimentState::kStoppingKilled, ExperimentState::kStoppingCompleted, ExperimentState::kStoppingError,
    ExperimentState::kCompleted,      ExperimentState::kCanceled,     ExperimentState::kError,
    ExperimentState::kDeleting,       ExperimentState::kDeleted,      ExperimentState::kDeleteFailed,
};

// Finished and not being deleted: COMPLETED, CANCELED, ERROR, DELETE_FAILED.
std::vector<ExperimentState> SettledStates() {
  std::vector<ExperimentState> out;
  for (ExperimentState s : kAllStates) {
    if (s != ExperimentState::kDeleting && api::CanTransition(s, ExperimentState::kDeleting)) out.push_back(s);
  }
  return out;
}

bool In(ExperimentState s, const std::vector<ExperimentState>& states) {
  for (ExperimentState t : states) {
    if (t == s) return true;
  }
  return false;
}

absl::Status NotDeletable(ExperimentState found) {
  return absl::FailedPreconditionError(
      absl::StrCat("experiment in non terminal state 'STATE_", api::Name(found), "', try again later"));
}

}  // namespace

absl::Status ArchiveExperiment(ExperimentStore& store, int64_t id, bool archived) {
  std::vector<ExperimentState> settled = SettledStates();
  ASSIGN_OR_RETURN(ExperimentState found, store.SetExperimentArchived(id, archived, settled));
  if (In(found, settled)) return absl::OkStatus();
  const char* verb = archived ? "archive" : "unarchive";
  return absl::FailedPreconditionError(absl::StrCat("cannot ", verb, " experiment ", id,
                                                    " in non-terminal state STATE_", api::Name(found),
                                                    ": only finished experiments can be ", verb, "d"));
}

absl::Status StartDeletingExperiment(Store& store, int64_t id) {
  RETURN_IF_ERROR(RefuseRegisteredCheckpoints(store, {}, id));
  std::vector<ExperimentState> settled = SettledStates();
  ASSIGN_OR_RETURN(ExperimentState found, store.SetExperimentState(id, ExperimentState::kDeleting, settled));
  return In(found, settled) ? absl::OkStatus() : NotDeletable(found);
}

absl::Status MarkExperimentDeleteFailed(ExperimentStore& store, int64_t id) {
  std::vector<ExperimentState> any(std::begin(kAllStates), std::end(kAllStates));
  return store.SetExperimentState(id, ExperimentState::kDeleteFailed, any).status();
}

absl::Status DeleteExperimentRecords(ExperimentStore& store, int64_t id) {
  std::vector<ExperimentState> deletable = SettledStates();
  deletable.push_back(ExperimentState::kDeleting);
  ASSIGN_OR_RETURN(ExperimentState found, store.DeleteExperiment(id, deletable));
  return In(found, deletable) ? absl::OkStatus() : NotDeletable(found);
}

std::optional<absl::Status> StateChangeOfEndedExperiment(int64_t id, ExperimentState stored, ExperimentState target,
                                                         StateChangeScope scope) {
  if (!api::IsTerminal(stored)) return std::nullopt;
  if (scope == StateChangeScope::kBulk) {
    return absl::FailedPreconditionError(absl::StrCat("experiment ", id, " is ", api::Name(stored), ": it has ended"));
  }
  if (target == ExperimentState::kStoppingCanceled || target == ExperimentState::kStoppingKilled) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat("experiment in incompatible state STATE_", api::Name(stored)));
}

absl::Status ResourcesChangeResult(int64_t id, ExperimentState stored, absl::Status cluster_answer) {
  if (!absl::IsNotFound(cluster_answer)) return cluster_answer;
  return absl::FailedPreconditionError(absl::StrCat("experiment ", id, " is ", api::Name(stored),
                                                    "; its resources can be changed only while it is active or paused"));
}

absl::StatusOr<double> BestSearcherMetric(int64_t id, const std::vector<api::Trial>& trials, bool smaller_is_better) {
  std::optional<double> best;
  for (const api::Trial& t : trials) {
    if (t.searcher_metric_value && IsBetterMetric(*t.searcher_metric_value, best, smaller_is_better)) {
      best = t.searcher_metric_value;
    }
  }
  if (!best) return absl::NotFoundError(absl::StrCat("experiment ", id, " has no validation metrics yet"));
  return *best;
}

absl::StatusOr<api::Trial> TrialToContinue(int64_t id, std::vector<api::Trial> trials) {
  if (trials.size() != 1) {
    return absl::FailedPreconditionError(absl::StrCat("experiment ", id, " has ", trials.size(),
                                                      " trials; only a single-trial experiment continues"));
  }
  return std::move(trials.front());
}

absl::StatusOr<nlohmann::json> ContinuedConfig(const nlohmann::json& stored, const nlohmann::json& overrides) {
  nlohmann::json merged = config::MergeExperimentConfig(overrides, stored);
  if (merged.value("hyperparameters", nlohmann::json()) != stored.value("hyperparameters", nlohmann::json())) {
    return absl::InvalidArgumentError(
        "hyperparameters: a continued trial keeps the hyperparameters it trained with; create a new experiment "
        "(searcher.source_trial_id warm-starts it) to train with others");
  }
  return merged;
}

}  // namespace det::master

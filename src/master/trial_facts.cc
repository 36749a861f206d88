#include "master/trial_facts.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {

absl::StatusOr<TrialFacts> TrialFactsCache::Trial(int64_t trial_id, bool fresh, Clock::time_point now) {
  if (!fresh) {
    if (std::optional<TrialFacts> kept = trials_.Fresh(trial_id, now)) return *std::move(kept);
  }
  ASSIGN_OR_RETURN(api::Trial trial, store_.GetTrial(trial_id));
  ASSIGN_OR_RETURN(SearcherMetric searcher, store_.GetSearcherMetric(trial.experiment_id));
  TrialFacts facts{trial.experiment_id, trial.task_id, searcher};
  trials_.Put(trial_id, facts, now);
  return facts;
}

absl::StatusOr<std::string> TrialFactsCache::TaskOfAllocation(const std::string& allocation_id,
                                                              Clock::time_point now) {
  if (std::optional<std::string> kept = allocations_.Fresh(allocation_id, now)) return *std::move(kept);
  ASSIGN_OR_RETURN(Allocation allocation, store_.GetAllocation(allocation_id));
  allocations_.Put(allocation_id, allocation.task_id, now);
  return allocation.task_id;
}

absl::StatusOr<TrialFacts> TrialFactsCache::TrialReportedBy(int64_t trial_id, const std::string& allocation_id,
                                                           Clock::time_point now) {
  ASSIGN_OR_RETURN(TrialFacts trial, Trial(trial_id, /*fresh=*/allocation_id.empty(), now));
  if (allocation_id.empty()) return trial;
  ASSIGN_OR_RETURN(std::string task, TaskOfAllocation(allocation_id, now));
  if (task != trial.task_id) {
    ASSIGN_OR_RETURN(trial, Trial(trial_id, /*fresh=*/true, now));
  }
  if (task != trial.task_id) {
    return absl::PermissionDeniedError(
        absl::StrCat("allocation ", allocation_id, " does not belong to trial ", trial_id));
  }
  return trial;
}

}  // namespace det::master

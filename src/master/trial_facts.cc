#include "master/trial_facts.h"

#include "common/status_macros.h"

namespace det::master {

absl::StatusOr<TrialFacts> TrialFactsCache::Trial(int64_t trial_id, bool fresh, Clock::time_point now) {
  if (!fresh) {
    std::lock_guard lock(mu_);
    auto it = trials_.find(trial_id);
    if (it != trials_.end() && now - it->second.read_at < ttl_) return it->second.value;
  }
  ASSIGN_OR_RETURN(api::Trial trial, store_.GetTrial(trial_id));
  ASSIGN_OR_RETURN(SearcherMetric searcher, store_.GetSearcherMetric(trial.experiment_id));
  TrialFacts facts{trial.experiment_id, trial.task_id, searcher};
  std::lock_guard lock(mu_);
  if (trials_.size() >= capacity_) trials_.clear();
  trials_[trial_id] = {facts, now};
  return facts;
}

absl::StatusOr<std::string> TrialFactsCache::TaskOfAllocation(const std::string& allocation_id,
                                                              Clock::time_point now) {
  {
    std::lock_guard lock(mu_);
    auto it = allocations_.find(allocation_id);
    if (it != allocations_.end() && now - it->second.read_at < ttl_) return it->second.value;
  }
  ASSIGN_OR_RETURN(Allocation allocation, store_.GetAllocation(allocation_id));
  std::lock_guard lock(mu_);
  if (allocations_.size() >= capacity_) allocations_.clear();
  allocations_[allocation_id] = {allocation.task_id, now};
  return allocation.task_id;
}

}  // namespace det::master

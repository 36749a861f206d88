#include "master/checkpoint_gc_policy.h"

#include <algorithm>
#include <map>
#include <utility>

namespace det::master {
namespace {

// Orders validations best first: by searcher metric (missing last), then by id.
struct BetterValidation {
  bool smaller_is_better;
  bool operator()(const GcValidation* a, const GcValidation* b) const {
    if (a->searcher_metric.has_value() != b->searcher_metric.has_value()) return a->searcher_metric.has_value();
    if (a->searcher_metric && *a->searcher_metric != *b->searcher_metric) {
      return smaller_is_better ? *a->searcher_metric < *b->searcher_metric
                               : *a->searcher_metric > *b->searcher_metric;
    }
    return a->id < b->id;
  }
};

}  // namespace

std::vector<std::string> CheckpointsToDelete(const std::vector<GcCheckpoint>& checkpoints,
                                             const std::vector<GcValidation>& validations,
                                             const CheckpointGcPolicy& policy, bool smaller_is_better,
                                             const std::set<std::string>& keep) {
  BetterValidation better{smaller_is_better};
  // Each checkpoint's validation: the best report of its trial at its step.
  std::map<std::pair<int64_t, int64_t>, const GcValidation*> at_step;
  for (const GcValidation& v : validations) {
    auto [it, inserted] = at_step.try_emplace({v.trial_id, v.total_batches}, &v);
    if (!inserted && better(&v, it->second)) it->second = &v;
  }
  std::vector<const GcValidation*> of_checkpoint(checkpoints.size(), nullptr);
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    auto it = at_step.find({checkpoints[i].trial_id, checkpoints[i].steps_completed});
    if (it != at_step.end()) of_checkpoint[i] = it->second;
  }

  // Checkpoint indexes ranked best validation first, over the experiment and within each trial.
  std::vector<size_t> validated;
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    if (of_checkpoint[i] != nullptr) validated.push_back(i);
  }
  std::stable_sort(validated.begin(), validated.end(),
                   [&](size_t a, size_t b) { return better(of_checkpoint[a], of_checkpoint[b]); });
  std::vector<int64_t> experiment_rank(checkpoints.size(), 0), trial_rank(checkpoints.size(), 0);
  std::map<int64_t, int64_t> ranked_in_trial;
  for (size_t r = 0; r < validated.size(); ++r) {
    size_t i = validated[r];
    experiment_rank[i] = static_cast<int64_t>(r) + 1;
    trial_rank[i] = ++ranked_in_trial[checkpoints[i].trial_id];
  }

  // Rank by recency within each trial: most steps first.
  std::vector<size_t> by_steps(checkpoints.size());
  for (size_t i = 0; i < by_steps.size(); ++i) by_steps[i] = i;
  std::stable_sort(by_steps.begin(), by_steps.end(), [&](size_t a, size_t b) {
    return checkpoints[a].steps_completed > checkpoints[b].steps_completed;
  });
  std::vector<int64_t> order_rank(checkpoints.size(), 0);
  std::map<int64_t, int64_t> ordered_in_trial;
  for (size_t i : by_steps) order_rank[i] = ++ordered_in_trial[checkpoints[i].trial_id];

  std::vector<std::string> doomed;
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    bool not_among_best = of_checkpoint[i] == nullptr || (experiment_rank[i] > policy.save_experiment_best &&
                                                          trial_rank[i] > policy.save_trial_best);
    if (not_among_best && order_rank[i] > policy.save_trial_latest && !keep.count(checkpoints[i].uuid)) {
      doomed.push_back(checkpoints[i].uuid);
    }
  }
  return doomed;
}

}  // namespace det::master

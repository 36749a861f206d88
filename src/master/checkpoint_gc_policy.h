#pragma once
// Which of an experiment's checkpoints its checkpoint_storage policy lets go when it ends (reference §9):
// a checkpoint is deleted iff
//   ((experiment_rank > save_experiment_best AND trial_rank > save_trial_best) OR no validation at its step)
//   AND trial_order_rank > save_trial_latest
// and no live trial starts from it.
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace det::master {

struct CheckpointGcPolicy {  // upstream's defaults
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 1;
  int64_t save_trial_latest = 1;
};

// The counts by their checkpoint_storage keys, for whoever reads or writes them.
inline constexpr std::array<std::pair<const char*, int64_t CheckpointGcPolicy::*>, 3> kGcPolicyFields = {{
    {"save_experiment_best", &CheckpointGcPolicy::save_experiment_best},
    {"save_trial_best", &CheckpointGcPolicy::save_trial_best},
    {"save_trial_latest", &CheckpointGcPolicy::save_trial_latest},
}};

struct GcCheckpoint {
  std::string uuid;
  int64_t trial_id = 0;
  int64_t steps_completed = 0;
};

// A validation report: its searcher metric, or nullopt when the report lacks it.
struct GcValidation {
  int64_t id = 0;  // breaks ties in the ranking
  int64_t trial_id = 0;
  int64_t total_batches = 0;
  std::optional<double> searcher_metric;
};

// The uuids to delete, in the order of `checkpoints`. Ranks are 1-based; a checkpoint's
// validation is the trial's validation whose total_batches equals its steps_completed (the best
// one if there are several). Validations without the searcher metric rank last.
std::vector<std::string> CheckpointsToDelete(const std::vector<GcCheckpoint>& checkpoints,
                                             const std::vector<GcValidation>& validations,
                                             const CheckpointGcPolicy& policy, bool smaller_is_better,
                                             const std::set<std::string>& keep);

}  // namespace det::master

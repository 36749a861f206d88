#pragma once
// `det experiment set gc-policy ID --save-experiment-best N --save-trial-best N --save-trial-latest N
// [--yes]`: shows what the policy would delete now (GET /experiments/{id}/preview_gc), asks, then PATCHes
// the experiment's checkpointStorage; the master collects a finished experiment again under it.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

struct GcPolicy {
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 0;
  int64_t save_trial_latest = 0;
};

// Without `yes`, prints the checkpoints the policy would delete and asks `confirm` (false: "Aborting
// operations.", nothing changes). Then prints "Set GC policy of experiment ID to\n{...}". The master
// refuses negative counts, naming the field.
absl::StatusOr<int> SetGcPolicy(Session& session, int experiment_id, const GcPolicy& policy, bool yes,
                                const std::function<bool(const std::string& question)>& confirm,
                                std::ostream& out);

}  // namespace det::cli

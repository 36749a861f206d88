#pragma once
// An experiment's warm start (searcher.source_checkpoint_uuid or searcher.source_trial_id): the
// checkpoint its trials begin from. Resolved where the experiment is created or recovered, off the
// cluster's loop.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "master/db/checkpoint_store.h"
#include "master/db/experiment_store.h"

namespace det::master {

// The checkpoint's UUID; "" without a warm start. InvalidArgument, naming the field, when the source
// checkpoint or trial does not exist or the trial has no checkpoint; the store's error when it
// cannot be read.
absl::StatusOr<std::string> WarmStartCheckpoint(CheckpointStore& checkpoints, ExperimentStore& trials,
                                                const nlohmann::json& config);

// The checkpoint the trials of `experiment` started from, as upstream's trials show it
// (warmStartCheckpointUuid): "" without a warm start, or when its source can no longer be found.
std::string TrialsWarmStartCheckpoint(CheckpointStore& checkpoints, ExperimentStore& trials,
                                      const api::Experiment& experiment);

// `trial` as upstream's API writes it (api::ToJson), naming the checkpoint it warm-started from.
nlohmann::json TrialJson(const api::Trial& trial, const std::string& warm_start_checkpoint);

}  // namespace det::master

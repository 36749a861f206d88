#pragma once
// Which experiments may be archived, deleted and continued, with upstream's errors. The store only
// carries the writes out, each while the experiment is in one of the states given here
// (experiment_store.h).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

// Only finished experiments not being deleted (COMPLETED, CANCELED, ERROR, DELETE_FAILED) can be
// (un)archived; else FailedPrecondition.
absl::Status ArchiveExperiment(ExperimentStore& store, int64_t id, bool archived);
// A finished experiment (as above) becomes DELETING while its checkpoints are deleted from storage;
// FailedPrecondition `experiment in non terminal state 'STATE_X', try again later` otherwise, or
// naming the model version that holds one of its checkpoints (model_rules.h).
absl::Status StartDeletingExperiment(Store& store, int64_t id);
// Storage would not delete its checkpoints: DELETE_FAILED (deleting may be asked again).
absl::Status MarkExperimentDeleteFailed(ExperimentStore& store, int64_t id);
// Removes the records of a finished or DELETING experiment; FailedPrecondition (as above) otherwise.
absl::Status DeleteExperimentRecords(ExperimentStore& store, int64_t id);
// A state change asked of an ended experiment, which the cluster no longer holds: canceling or
// killing it again does nothing (OK); pausing or activating it is FailedPrecondition `experiment in
// incompatible state STATE_X`, upstream's error.
absl::Status ChangeEndedExperimentState(api::ExperimentState ended, api::ExperimentState target);
// `det experiment continue`: the stored (complete) config with the user's overrides merged in; the
// continued trial keeps the hyperparameters it trained with, so overrides that change them are
// InvalidArgument. The cluster checks the rest (a finished experiment, the single searcher).
absl::StatusOr<nlohmann::json> ContinuedConfig(const nlohmann::json& stored, const nlohmann::json& overrides);

}  // namespace det::master

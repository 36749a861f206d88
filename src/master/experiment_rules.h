#pragma once
// Which experiments may be archived, deleted, continued and changed, with upstream's errors. The store only
// carries the writes out, each while the experiment is in one of the states given here
// (experiment_store.h).
#include <cstdint>
#include <optional>
#include <vector>

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
// Who asked for a state change: the experiment's own route, or a bulk action over several.
enum class StateChangeScope { kOneExperiment, kBulk };
// A state change (activate, pause, cancel, kill) asked of experiment `id`, decided from its stored
// state. The cluster holds live experiments only and decides for them: nullopt. An experiment that
// has ended (api::IsTerminal) is answered here:
//  - on its own route, canceling or killing it again does nothing (OK); pausing or activating it is
//    FailedPrecondition `experiment in incompatible state STATE_X`, upstream's error;
//  - in a bulk action, as upstream's, any change is FailedPrecondition `experiment ID is X: it has
//    ended`.
std::optional<absl::Status> StateChangeOfEndedExperiment(int64_t id, api::ExperimentState stored,
                                                         api::ExperimentState target, StateChangeScope scope);
// What the cluster's answer to a change of experiment `id`'s resources (priority, weight, max_slots)
// means: it holds no job of an experiment that has ended (NotFound), which is FailedPrecondition
// `experiment ID is X; its resources can be changed only while it is active or paused` (`stored`:
// the state the experiment was read in); any other answer stands.
absl::Status ResourcesChangeResult(int64_t id, api::ExperimentState stored, absl::Status cluster_answer);
// The best searcher metric value among `trials` (the smallest, or the largest when
// !smaller_is_better); NotFound `experiment ID has no validation metrics yet` when none has one.
absl::StatusOr<double> BestSearcherMetric(int64_t id, const std::vector<api::Trial>& trials, bool smaller_is_better);
// `det experiment continue` continues the trial of a single-trial experiment: that trial, else
// FailedPrecondition `experiment ID has N trials; only a single-trial experiment continues`.
absl::StatusOr<api::Trial> TrialToContinue(int64_t id, std::vector<api::Trial> trials);
// `det experiment continue`: the stored (complete) config with the user's overrides merged in; the
// continued trial keeps the hyperparameters it trained with, so overrides that change them are
// InvalidArgument. The cluster checks the rest (a finished experiment, the single searcher).
absl::StatusOr<nlohmann::json> ContinuedConfig(const nlohmann::json& stored, const nlohmann::json& overrides);

}  // namespace det::master

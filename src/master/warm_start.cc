#include "master/warm_start.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"

namespace det::master {

using nlohmann::json;

absl::StatusOr<std::string> WarmStartCheckpoint(CheckpointStore& checkpoints, ExperimentStore& trials,
                                                const json& config) {
  const json searcher = config.is_object() ? config.value("searcher", json::object()) : json::object();
  if (const json& uuid = searcher.value("source_checkpoint_uuid", json()); uuid.is_string()) {
    absl::StatusOr<api::Checkpoint> checkpoint = checkpoints.GetCheckpoint(uuid.get<std::string>());
    if (absl::IsNotFound(checkpoint.status())) {
      return absl::InvalidArgumentError(
          absl::StrCat("searcher.source_checkpoint_uuid: no checkpoint ", uuid.get<std::string>()));
    }
    if (!checkpoint.ok()) return checkpoint.status();
    return checkpoint->uuid;
  }
  if (const json& id = searcher.value("source_trial_id", json()); id.is_number_integer()) {
    absl::StatusOr<api::Trial> trial = trials.GetTrial(id.get<int64_t>());
    if (absl::IsNotFound(trial.status())) {
      return absl::InvalidArgumentError(absl::StrCat("searcher.source_trial_id: no trial ", id.get<int64_t>()));
    }
    if (!trial.ok()) return trial.status();
    if (trial->latest_checkpoint_uuid.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("searcher.source_trial_id: trial ", trial->id, " has no checkpoint to start from"));
    }
    return trial->latest_checkpoint_uuid;
  }
  return std::string();
}

std::string TrialsWarmStartCheckpoint(CheckpointStore& checkpoints, ExperimentStore& trials,
                                      const api::Experiment& experiment) {
  json config = json::parse(experiment.config_json, nullptr, /*allow_exceptions=*/false);
  return WarmStartCheckpoint(checkpoints, trials, config).value_or("");
}

json TrialJson(const api::Trial& trial, const std::string& warm_start_checkpoint) {
  json j = api::ToJson(trial);
  j["warmStartCheckpointUuid"] = warm_start_checkpoint;
  return j;
}

}  // namespace det::master

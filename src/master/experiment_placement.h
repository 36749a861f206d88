#pragma once
// Which project an experiment is in: where a new one goes, and moving one to another project, under
// upstream's rules (the store stores; these check).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "config/master_config.h"
#include "master/db/store.h"

namespace det::master {

// Where a new experiment goes: project `project_id` when given (non-zero), else the project the
// config names with `workspace:` and `project:` (both or neither), else Uncategorized (1). When both
// are given they must agree (an id of 1, which some clients send by default, yields to the names).
// The project must exist (NotFound) and not be archived (FailedPrecondition).
absl::StatusOr<Project> ProjectForNewExperiment(WorkspaceStore& store, int64_t project_id,
                                                const std::string& workspace_name, const std::string& project_name);

// Places a new experiment whose (template-merged, not yet defaulted) `config` is given: its project
// as above (`config`'s workspace: and project: names), then its workspace's settings under the
// config's own: the workspace's checkpoint storage replaces `default_checkpoint_storage_json` (the
// master's), its default compute pool goes into `config` when it names none, and a pool bound to other
// workspaces is refused (pool_bindings.h).
absl::StatusOr<Project> PlaceNewExperiment(Store& store, const config::MasterConfig& master, int64_t project_id,
                                           nlohmann::json& config, std::string& default_checkpoint_storage_json);

// Moves an experiment to `destination_project_id`: the experiment is not archived, its project is
// not archived, and the destination exists and is not archived. Moving to where it is succeeds.
absl::Status MoveExperimentChecked(Store& store, int64_t experiment_id, int64_t destination_project_id);

}  // namespace det::master

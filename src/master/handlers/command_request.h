#pragma once
// Reading a LaunchCommand or CreateGenericTask body into the task the cluster starts.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "config/master_config.h"
#include "master/cluster/cluster.h"
#include "master/db/store.h"

namespace det::master {

// POST /api/v1/commands (and notebooks, shells, tensorboards, for `type`): {config,
// templateName|template_name, files, data, workspaceId}. The template's config comes from the store
// (an unknown name is InvalidArgument naming templateName). The task runs in workspace `workspaceId`
// (0 or absent: 1), which must exist and not be archived; when its config names no pool, the
// workspace's default compute pool (aux pool for a task without slots) is used, and a pool bound to
// other workspaces is refused. Notebooks, shells and TensorBoards run
// their runner (python3 -m determined.exec.<kind>) whatever the entrypoint; TensorBoards hold 0 slots.
absl::StatusOr<NewTask> ParseLaunchCommand(Store& store, const config::MasterConfig& config,
                                           const nlohmann::json& body, int64_t max_context_bytes,
                                           TaskType type = TaskType::kCommand);

// What a new task of `type` is made with (Task::service_json): a notebook's token, a shell's key
// pair, a TensorBoard's sources from the body's experimentIds/trialIds (InvalidArgument when both
// are empty, NotFound for an unknown id); "{}" for other types.
absl::StatusOr<std::string> ServiceDataFor(Store& store, TaskType type, const nlohmann::json& body);

// POST /api/v1/generic-tasks: {config: YAML text, contextDirectory: [File], projectId, forkedFrom};
// the task runs in the project's workspace (project 1 when absent), as above.
absl::StatusOr<NewTask> ParseCreateGenericTask(Store& store, const config::MasterConfig& config,
                                               const nlohmann::json& body, int64_t max_context_bytes);

}  // namespace det::master

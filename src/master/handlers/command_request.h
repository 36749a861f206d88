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

// The task_container_defaults that apply to a config: its pool's (resources.resource_pool, in the
// submitted config or else the template), else the master's. Both are JSON text from the master config.
nlohmann::json DefaultsFor(const config::MasterConfig& config, const nlohmann::json& submitted,
                           const nlohmann::json& tmpl);

// POST /api/v1/commands: {config, templateName|template_name, files, data, workspaceId}. The
// template's config comes from the store (an unknown name is InvalidArgument naming templateName).
absl::StatusOr<NewTask> ParseLaunchCommand(Store& store, const config::MasterConfig& config,
                                           const nlohmann::json& body, int64_t max_context_bytes);

// POST /api/v1/generic-tasks: {config: YAML text, contextDirectory: [File], projectId, forkedFrom}.
absl::StatusOr<NewTask> ParseCreateGenericTask(const config::MasterConfig& config, const nlohmann::json& body,
                                               int64_t max_context_bytes);

}  // namespace det::master

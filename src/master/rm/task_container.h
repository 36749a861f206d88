#pragma once
// The container a task runs in on an agent (api::TaskContainer), from its config's `environment` and
// `resources` sections: the image for the agent's slot type, force_pull_image, registry_auth,
// add/drop_capabilities, resources.shm_size and resources.devices. Pure.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"

namespace det::master {

// nullopt when `environment` names no image, or the default one (the task runs as a process on the host). `slot_type`
// ("cpu", "cuda", "rocm") picks from an image given as {cpu, cuda, rocm}. `default_shm_size` (the pool's
// task_container_defaults.shm_size_bytes) applies when resources.shm_size is unset. InvalidArgument, naming
// the field, for a size or value the agent could not use.
absl::StatusOr<std::optional<api::TaskContainer>> TaskContainerOf(const nlohmann::json& environment,
                                                                  const nlohmann::json& resources,
                                                                  const std::string& slot_type,
                                                                  int64_t default_shm_size = 0);

}  // namespace det::master

#pragma once
// The container a task runs in on an agent (api::TaskContainer), from its config's `environment` and
// `resources` sections: the image for the agent's slot type, force_pull_image, registry_auth,
// add/drop_capabilities, resources.shm_size and resources.devices, over its pool's container defaults. Pure.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "api/agent_protocol.h"

namespace det::master {

// What a pool's task_container_defaults (its own, else the master's) give its tasks' containers.
struct ContainerDefaults {
  int64_t shm_size = 0;              // shm_size_bytes: /dev/shm unless resources.shm_size; 0: the engine's
  std::string network_mode = "host";  // network_mode: host, none, bridge or a network the engine has
};

// The container defaults in task_container_defaults `tcd_json` (master config JSON); the fields it
// lacks keep ContainerDefaults' values.
ContainerDefaults ContainerDefaultsOf(const std::string& tcd_json);

// nullopt when `environment` names no image, or the default one (the task runs as a process on the host). `slot_type`
// ("cpu", "cuda", "rocm") picks from an image given as {cpu, cuda, rocm}. `defaults.shm_size` applies when
// resources.shm_size is unset. InvalidArgument, naming the field, for a size or value the agent could not use.
absl::StatusOr<std::optional<api::TaskContainer>> TaskContainerOf(const nlohmann::json& environment,
                                                                  const nlohmann::json& resources,
                                                                  const std::string& slot_type,
                                                                  const ContainerDefaults& defaults = {});

}  // namespace det::master

#pragma once
// What the agent does for a task that names an image before the container runtime starts it: the image is
// pulled when it is not on the host or the task forces a pull (its progress said in the task's log at a
// sane rate), and the task's container settings are made: the task directory and its bind mounts (read-only
// where asked, which a process on the host cannot have), the allocation's GPUs, shm size, capabilities and
// devices.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/container_engine.h"
#include "api/agent_protocol.h"

namespace det::agent {

// `say` writes a line to the task's log. A pull that fails is the error, with the engine's words
// ("unauthorized: authentication required", "initializing source docker://...: manifest unknown").
absl::StatusOr<ContainerSettings> PrepareContainer(ContainerEngine& engine, const api::StartTask& start,
                                                   const std::filesystem::path& task_dir,
                                                   const std::vector<api::SlotInfo>& slots,
                                                   const std::function<void(std::string)>& say);

// The task's registry_auth as the engine takes it; nullopt when it has none.
std::optional<RegistryAuth> RegistryAuthOf(const std::map<std::string, std::string>& registry_auth);

}  // namespace det::agent

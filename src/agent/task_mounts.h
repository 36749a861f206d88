#pragma once
// bind_mounts and work_dir for tasks run as plain processes (no container): a mount's
// container_path becomes a symbolic link to its host_path, so the task finds the files where its
// config says. A relative container_path lives in the task directory (and goes with it); an absolute
// one is created on the host if it does not exist (and is left there), or reused when it already
// links to the same host_path. read_only cannot be enforced by a link and is not.
#include <filesystem>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/agent_protocol.h"

namespace det::agent {

// Creates the links; an error names the mount and why (a host path that does not exist, a container
// path that is already something else).
absl::Status ApplyMounts(const std::vector<api::TaskMount>& mounts, const std::filesystem::path& task_dir);

// Where the process starts: `work_dir` ("" = the task directory; relative = inside it). It must be an
// existing directory.
absl::StatusOr<std::filesystem::path> TaskWorkDir(const std::string& work_dir, const std::filesystem::path& task_dir);

}  // namespace det::agent

#pragma once
// A task that runs as its workspace's agent user group must be able to write its own directory (the
// context it was given, its checkpoints' scratch files): the agent hands the directory over.
#include <cstdint>
#include <filesystem>

#include "absl/status/status.h"

namespace det::agent {

// Makes `uid`:`gid` the owner of `dir` and of everything below it. Links are changed themselves,
// never followed: a bind mount's target (task_mounts.h) keeps its owner. FailedPrecondition when a
// directory above `dir` does not let that user through (no search permission for it), naming it.
absl::Status GiveTaskDir(const std::filesystem::path& dir, uint32_t uid, uint32_t gid);

}  // namespace det::agent

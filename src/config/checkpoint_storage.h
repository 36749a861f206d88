#pragma once
// Where checkpoints of a storage configuration live on the local filesystem.
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace det::config {

// The base directory of a shared_fs storage (docs/task-contract.md): `host_path/storage_path` for a
// relative storage_path, `storage_path` itself for an absolute one (which must lie under
// host_path), `host_path` when storage_path is empty. host_path must be absolute; the result is
// normalized. Checkpoint UUID directories sit directly under it.
absl::StatusOr<std::filesystem::path> ResolveSharedFsBase(const std::string& host_path,
                                                          const std::string& storage_path);

}  // namespace det::config

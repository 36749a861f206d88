#pragma once
// Where a checkpoint's files live, from the experiment config's `checkpoint_storage`:
//   shared_fs: host_path/storage_path/UUID (storage_path relative to host_path, or absolute), or
//              host_path/UUID without storage_path;
//   directory: container_path/UUID;
//   s3 / gcs / azure: a bucket URL with the optional prefix.
// Returns "" when the storage type is unknown or the config lacks the needed fields.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace det::cli {

std::string CheckpointLocation(const nlohmann::json& checkpoint_storage, const std::string& uuid);

}  // namespace det::cli

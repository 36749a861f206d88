#pragma once
// Checkpoint storage backends (reference §2.5). A checkpoint is a directory named by its UUID.
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::harness {

class StorageManager {
 public:
  virtual ~StorageManager() = default;

  // A fresh, empty local directory for the files of checkpoint `uuid`. For direct-access storage
  // (shared_fs, directory) this is the checkpoint's final place.
  virtual absl::StatusOr<std::filesystem::path> StorePath(const std::string& uuid) = 0;
  // Where another worker writes its shard of checkpoint `uuid`, which the chief began with StorePath:
  // direct-access storage shares the chief's directory; remote storage stages each shard apart.
  virtual absl::StatusOr<std::filesystem::path> ShardPath(const std::string& uuid) { return StorePath(uuid); }
  // Whether ShardPath gives every worker the chief's directory.
  virtual bool ShardsShareADirectory() const { return false; }
  // Called once the files under `dir` (from StorePath) are complete: uploads them where the storage
  // is remote. A no-op for direct-access storage.
  virtual absl::Status PostStore(const std::string& uuid, const std::filesystem::path& dir) = 0;
  // A local directory holding checkpoint `uuid`; NotFound when there is no such checkpoint.
  virtual absl::StatusOr<std::filesystem::path> RestorePath(const std::string& uuid) = 0;
  // The caller is done with `dir` from RestorePath: remote storage removes its local copy; direct-access
  // storage leaves the checkpoint alone.
  virtual void ReleaseRestorePath(const std::filesystem::path& /*dir*/) {}
  // Copies checkpoint `uuid` into `dir` (created if missing; files there are overwritten): by default
  // from RestorePath; remote storage downloads straight into `dir`.
  virtual absl::Status DownloadTo(const std::string& uuid, const std::filesystem::path& dir);
  // Removes checkpoint `uuid`; not an error when it is already gone.
  virtual absl::Status Delete(const std::string& uuid) = 0;
  // "shared_fs at /data/checkpoints", for logs and errors.
  virtual std::string Describe() const = 0;
};

// A checkpoint UUID is used as a directory name: it must be one non-empty path component.
absl::Status ValidateStorageId(const std::string& uuid);

// Builds the manager for an experiment config's `checkpoint_storage` section: `shared_fs`
// (host_path [+ storage_path]), `directory` (container_path) and `s3`; gcs and azure are Unimplemented.
absl::StatusOr<std::unique_ptr<StorageManager>> MakeStorageManager(
    const nlohmann::json& checkpoint_storage);

}  // namespace det::harness

#pragma once
// Checkpoint storage backends (reference §2.5). A checkpoint is a directory named by its UUID.
// Besides checkpoints, a storage holds plain files under key prefixes (TensorBoard event files
// under `tensorboard/experiment/E/trial/T/`, docs/interactive.md): `prefix/relative/path`, beside
// the checkpoint directories.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::storage {

// A file stored under a key prefix (StorageManager::ListFiles).
struct StoredFile {
  std::string path;  // relative to the prefix, '/'-separated
  int64_t size = 0;
  // Changes whenever the stored content is replaced: the ETag (s3), the modification time and
  // inode (file systems). Only compared for equality.
  std::string version;

  bool operator==(const StoredFile&) const = default;
};

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

  // Files under a key prefix. `prefix` must pass NormalizeKeyPrefix; `name`s are '/'-separated
  // paths under it and must pass ValidateRelativeKey (InvalidArgument otherwise). The defaults
  // answer Unimplemented (a storage that only holds checkpoints).
  //
  // Uploads `local_file` as `prefix/name`, replacing what is stored there: a reader sees the old
  // or the new content, never a part. NotFound when `local_file` is not a regular file.
  virtual absl::Status UploadFile(const std::filesystem::path& local_file,
                                  const std::string& prefix, const std::string& name);
  // Every file stored under `prefix/`, recursively, sorted by path; empty when there is none.
  virtual absl::StatusOr<std::vector<StoredFile>> ListFiles(const std::string& prefix);
  // Downloads `prefix/name` to `local_file` (its directory is created; the file is replaced
  // atomically). NotFound when no such file is stored.
  virtual absl::Status DownloadFile(const std::string& prefix, const std::string& name,
                                    const std::filesystem::path& local_file);
  // Removes `prefix/name`; not an error when it is already gone. On file systems the directories it
  // leaves empty under `prefix` go too, so a listing and the tree agree.
  virtual absl::Status DeleteFile(const std::string& prefix, const std::string& name);

  // UploadFile(local_dir/f, prefix, f) for every f in `files`; stops at the first error.
  absl::Status UploadFiles(const std::filesystem::path& local_dir,
                           const std::vector<std::string>& files, const std::string& prefix);
  // DownloadFile(prefix, f, local_dir/f) for every f in `files`; stops at the first error.
  absl::Status DownloadFiles(const std::string& prefix, const std::vector<std::string>& files,
                             const std::filesystem::path& local_dir);
  // Uploads every regular file under `local_dir` (a missing directory holds none); returns how
  // many.
  absl::StatusOr<int> UploadDirectory(const std::filesystem::path& local_dir,
                                      const std::string& prefix);
  // Downloads every file under `prefix/` into `local_dir`; returns how many.
  absl::StatusOr<int> DownloadPrefix(const std::string& prefix,
                                     const std::filesystem::path& local_dir);
};

// "tensorboard/experiment/E": the key prefix of experiment E's TensorBoard files;
// "tensorboard/experiment/E/trial/T": trial T's, under it.
std::string TensorboardExperimentPrefix(int64_t experiment_id);
std::string TensorboardKeyPrefix(int64_t experiment_id, int64_t trial_id);

// A checkpoint UUID is used as a directory name: it must be one non-empty path component.
absl::Status ValidateStorageId(const std::string& uuid);

// A key prefix without its one optional trailing '/': relative, made of non-empty components none
// of which is "." or "..". InvalidArgument naming the prefix otherwise.
absl::StatusOr<std::string> NormalizeKeyPrefix(const std::string& prefix);
// A file's path under a prefix: relative, non-empty components, none "." or "..", no trailing '/'.
absl::Status ValidateRelativeKey(const std::string& path);

// Where a file is written before it is renamed onto `target`: a hidden sibling
// ".NAME.det-partial-RANDOM", which ListFiles of the file-system storages skips.
std::filesystem::path PartialSibling(const std::filesystem::path& target);
bool IsPartialName(const std::string& filename);

// Builds the manager for an experiment config's `checkpoint_storage` section: `shared_fs`
// (host_path [+ storage_path]), `directory` (container_path) and `s3`; gcs and azure are Unimplemented.
absl::StatusOr<std::unique_ptr<StorageManager>> MakeStorageManager(
    const nlohmann::json& checkpoint_storage);

}  // namespace det::storage

#pragma once
// `shared_fs` and `directory` checkpoint storage: checkpoints are directories under one local base
// path, written and read in place.
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "storage/storage_manager.h"

namespace det::storage {

class SharedFsStorage : public StorageManager {
 public:
  // `base` holds one subdirectory per checkpoint UUID; it is created on first store.
  // `type` is "shared_fs" or "directory" (for Describe()).
  explicit SharedFsStorage(std::filesystem::path base, std::string type = "shared_fs");

  absl::StatusOr<std::filesystem::path> StorePath(const std::string& uuid) override;
  absl::StatusOr<std::filesystem::path> ShardPath(const std::string& uuid) override;
  bool ShardsShareADirectory() const override { return true; }
  absl::Status PostStore(const std::string& uuid, const std::filesystem::path& dir) override;
  absl::StatusOr<std::filesystem::path> RestorePath(const std::string& uuid) override;
  absl::Status Delete(const std::string& uuid) override;
  std::string Describe() const override;

  // Files under `base/prefix/`. Uploads and downloads copy to a hidden sibling and rename it into
  // place; ListFiles skips such partial copies (another writer's, in flight).
  absl::Status UploadFile(const std::filesystem::path& local_file, const std::string& prefix,
                          const std::string& name) override;
  absl::StatusOr<std::vector<StoredFile>> ListFiles(const std::string& prefix) override;
  absl::Status DownloadFile(const std::string& prefix, const std::string& name,
                            const std::filesystem::path& local_file) override;
  absl::Status DeleteFile(const std::string& prefix, const std::string& name) override;

  const std::filesystem::path& base() const { return base_; }

 private:
  std::filesystem::path base_;
  std::string type_;
};

}  // namespace det::storage

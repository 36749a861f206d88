#include "harness/storage_manager.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "config/checkpoint_storage.h"
#include "harness/s3_storage.h"
#include "harness/shared_fs_storage.h"

namespace det::harness {

absl::Status ValidateStorageId(const std::string& uuid) {
  if (uuid.empty() || uuid == "." || uuid == ".." || uuid.find('/') != std::string::npos ||
      uuid.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint storage id \"", uuid, "\": must be a UUID (one path component)"));
  }
  return absl::OkStatus();
}

absl::Status StorageManager::DownloadTo(const std::string& uuid, const std::filesystem::path& dir) {
  ASSIGN_OR_RETURN(std::filesystem::path source, RestorePath(uuid));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) {
    std::filesystem::copy(source, dir,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                          ec);
  }
  ReleaseRestorePath(source);
  if (ec) {
    return absl::InternalError(absl::StrCat("copying checkpoint ", uuid, " from ", source.string(), " to ",
                                            dir.string(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StorageManager>> MakeStorageManager(
    const nlohmann::json& checkpoint_storage) {
  if (!checkpoint_storage.is_object()) {
    return absl::InvalidArgumentError(
        "checkpoint_storage: missing from the experiment config (expected an object with a type)");
  }
  std::string type = api::StringField(checkpoint_storage, "type");
  if (type == "shared_fs") {
    ASSIGN_OR_RETURN(std::filesystem::path base,
                     config::ResolveSharedFsBase(api::StringField(checkpoint_storage, "host_path"),
                                         api::StringField(checkpoint_storage, "storage_path")));
    return std::make_unique<SharedFsStorage>(std::move(base), "shared_fs");
  }
  if (type == "directory") {
    std::string path = api::StringField(checkpoint_storage, "container_path");
    if (path.empty()) {
      return absl::InvalidArgumentError(
          "checkpoint_storage.container_path: required for type directory");
    }
    std::filesystem::path base(path);
    if (!base.is_absolute()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint_storage.container_path: must be an absolute path, got \"", path, "\""));
    }
    return std::make_unique<SharedFsStorage>(base.lexically_normal(), "directory");
  }
  if (type == "s3") {
    ASSIGN_OR_RETURN(S3Config config, S3ConfigFromJson(checkpoint_storage));
    return std::make_unique<S3Storage>(std::move(config));
  }
  if (type == "gcs" || type == "azure") {
    return absl::UnimplementedError(absl::StrCat("checkpoint_storage.type ", type,
                                                 ": not supported by this harness yet; use "
                                                 "shared_fs, directory or s3"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "checkpoint_storage.type: must be one of shared_fs, directory, s3, gcs, azure; got \"", type,
      "\""));
}

}  // namespace det::harness

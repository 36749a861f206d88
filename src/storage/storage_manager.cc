#include "storage/storage_manager.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "common/file_util.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "config/checkpoint_storage.h"
#include "storage/checkpoint_resources.h"
#include "storage/s3_storage.h"
#include "storage/shared_fs_storage.h"

namespace det::storage {

std::string TensorboardExperimentPrefix(int64_t experiment_id) {
  return absl::StrCat("tensorboard/experiment/", experiment_id);
}

std::string TensorboardKeyPrefix(int64_t experiment_id, int64_t trial_id) {
  return absl::StrCat(TensorboardExperimentPrefix(experiment_id), "/trial/", trial_id);
}

absl::Status ValidateStorageId(const std::string& uuid) {
  if (uuid.empty() || uuid == "." || uuid == ".." || uuid.find('/') != std::string::npos ||
      uuid.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint storage id \"", uuid, "\": must be a UUID (one path component)"));
  }
  return absl::OkStatus();
}

namespace {

constexpr char kPartialMarker[] = ".det-partial-";

// Whether `path` is relative and made of non-empty components, none "." or "..".
bool CleanRelative(absl::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != absl::string_view::npos)
    return false;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> NormalizeKeyPrefix(const std::string& prefix) {
  absl::string_view p = prefix;
  absl::ConsumeSuffix(&p, "/");
  if (!CleanRelative(p)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "storage key prefix \"", prefix,
        "\": must be a relative path of non-empty components, none of them \".\" or \"..\" "
        "(for example tensorboard/experiment/1/trial/2)"));
  }
  return std::string(p);
}

absl::Status ValidateRelativeKey(const std::string& path) {
  if (!CleanRelative(path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stored file path \"", path,
        "\": must be a relative path of non-empty components, none of them \".\" or \"..\""));
  }
  return absl::OkStatus();
}

std::filesystem::path PartialSibling(const std::filesystem::path& target) {
  return target.parent_path() /
         absl::StrCat(".", target.filename().string(), kPartialMarker, RandomHex(6));
}

bool IsPartialName(const std::string& filename) {
  return absl::StartsWith(filename, ".") && absl::StrContains(filename, kPartialMarker);
}

absl::Status StorageManager::UploadFile(const std::filesystem::path&, const std::string& prefix,
                                        const std::string& name) {
  return absl::UnimplementedError(
      absl::StrCat("uploading ", prefix, "/", name, ": not supported by ", Describe()));
}

absl::StatusOr<std::vector<StoredFile>> StorageManager::ListFiles(const std::string& prefix) {
  return absl::UnimplementedError(
      absl::StrCat("listing files under ", prefix, "/: not supported by ", Describe()));
}

absl::Status StorageManager::DownloadFile(const std::string& prefix, const std::string& name,
                                          const std::filesystem::path&) {
  return absl::UnimplementedError(
      absl::StrCat("downloading ", prefix, "/", name, ": not supported by ", Describe()));
}

absl::Status StorageManager::DeleteFile(const std::string& prefix, const std::string& name) {
  return absl::UnimplementedError(
      absl::StrCat("deleting ", prefix, "/", name, ": not supported by ", Describe()));
}

absl::Status StorageManager::UploadFiles(const std::filesystem::path& local_dir,
                                         const std::vector<std::string>& files,
                                         const std::string& prefix) {
  for (const std::string& f : files) {
    RETURN_IF_ERROR(ValidateRelativeKey(f));
    RETURN_IF_ERROR(UploadFile(local_dir / f, prefix, f));
  }
  return absl::OkStatus();
}

absl::Status StorageManager::DownloadFiles(const std::string& prefix,
                                           const std::vector<std::string>& files,
                                           const std::filesystem::path& local_dir) {
  for (const std::string& f : files) {
    RETURN_IF_ERROR(ValidateRelativeKey(f));
    RETURN_IF_ERROR(DownloadFile(prefix, f, local_dir / f));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> StorageManager::UploadDirectory(const std::filesystem::path& local_dir,
                                                    const std::string& prefix) {
  RETURN_IF_ERROR(NormalizeKeyPrefix(prefix).status());
  std::error_code ec;
  if (!std::filesystem::exists(local_dir, ec)) return 0;
  ASSIGN_OR_RETURN(auto resources, ListResources(local_dir));
  std::vector<std::string> files;
  for (const auto& [rel, size] : resources) {
    if (!absl::EndsWith(rel, "/")) files.push_back(rel);
  }
  RETURN_IF_ERROR(UploadFiles(local_dir, files, prefix));
  return static_cast<int>(files.size());
}

absl::StatusOr<int> StorageManager::DownloadPrefix(const std::string& prefix,
                                                   const std::filesystem::path& local_dir) {
  ASSIGN_OR_RETURN(std::vector<StoredFile> stored, ListFiles(prefix));
  std::vector<std::string> files;
  files.reserve(stored.size());
  for (StoredFile& f : stored) files.push_back(std::move(f.path));
  RETURN_IF_ERROR(MakeDirs(local_dir));
  RETURN_IF_ERROR(DownloadFiles(prefix, files, local_dir));
  return static_cast<int>(files.size());
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

}  // namespace det::storage
